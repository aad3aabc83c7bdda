// SPDX-License-Identifier: MIT
//! Compares the hand-written `tas::uapi` module with the C header: compiles
//! a C program against the series' `tas_drm.h` that prints the
//! size of every structure, the offset and size of every field, and the
//! value of every constant and ioctl number, and checks each against Rust.
//!
//! Two environment variables choose the headers:
//! - `TAS_UAPI_HEADER`: path of `tas_drm.h`; by default the repository's
//!   `include-uapi/tas_drm.h` (`../../include-uapi` from this crate);
//! - `TAS_UAPI_INCLUDE`: a directory of installed kernel uAPI headers,
//!   with `drm/drm.h` (`make headers_install`), or libdrm's directory
//!   with `drm.h`. By default the first of `/usr/include` (`drm/drm.h`)
//!   and `/usr/include/libdrm` (`drm.h`, from libdrm-dev) that has it.
//!
//! When the variable is unset and neither directory has the header (a
//! machine without linux-libc-dev's or libdrm-dev's DRM headers), the test
//! compiles against a stand-in `drm.h` that has what `tas_drm.h` takes
//! from the real one: the `__u32`-style types and `_IOWR()` of the C
//! library's `<linux/types.h>` and `<linux/ioctl.h>` (linux-libc-dev, which
//! the C compiler needs anyway), and `DRM_IOCTL_BASE` and
//! `DRM_COMMAND_BASE`, whose values it takes from the `drm-sys` crate (the
//! bindings of the kernel's `drm.h`). So every structure, constant and
//! ioctl number of `tas_drm.h` is still checked. A variable that is set
//! but wrong fails the test, and so does a missing `<linux/types.h>`.
//!
//! `CC` picks the C compiler (default `cc`).

use std::collections::{BTreeMap, BTreeSet};
use std::mem::{offset_of, size_of};
use std::path::{Path, PathBuf};
use std::process::Command;
use tas::uapi::*;

const HOWTO: &str = "\
set TAS_UAPI_HEADER to the series' tas_drm.h (default: include-uapi/tas_drm.h of the \
repository) and TAS_UAPI_INCLUDE to installed kernel uAPI headers (with drm/drm.h; \
default: /usr/include or /usr/include/libdrm, else a stand-in drm.h over <linux/types.h>), \
e.g. from the TAS repository:
    TAS_UAPI_HEADER=../../include-uapi/tas_drm.h TAS_UAPI_INCLUDE=$HOME/.cache/tas/out/x86/usr/include cargo test";

/// Directories tried for `drm.h` when `TAS_UAPI_INCLUDE` is unset.
const DEFAULT_INCLUDES: [&str; 2] = ["/usr/include", "/usr/include/libdrm"];

struct Struct {
    name: &'static str,
    size: usize,
    /// (field, offset, size)
    fields: Vec<(&'static str, usize, usize)>,
}

/// The size of the field that `f` projects to.
fn field_size<T, F>(_f: fn(&T) -> &F) -> usize {
    size_of::<F>()
}

macro_rules! layout {
    ($ty:ident { $($field:ident),* $(,)? }) => {
        Struct {
            name: stringify!($ty),
            size: size_of::<$ty>(),
            fields: vec![$((
                stringify!($field),
                offset_of!($ty, $field),
                field_size(|s: &$ty| &s.$field),
            )),*],
        }
    };
}

fn structs() -> Vec<Struct> {
    vec![
        layout!(drm_tas_get_param { param, pad, value }),
        layout!(drm_tas_bo_create {
            size,
            flags,
            handle
        }),
        layout!(drm_tas_bo_mmap_offset {
            handle,
            pad,
            offset
        }),
        layout!(drm_tas_buf {
            handle,
            pad,
            offset,
            size
        }),
        layout!(drm_tas_node {
            ring,
            op,
            class,
            gang,
            duration_ns,
            dst,
            src,
            imm,
            flags,
            pad,
            tag,
        }),
        layout!(drm_tas_edge { from, to }),
        layout!(drm_tas_sync {
            handle,
            node,
            point,
            flags,
            pad
        }),
        layout!(drm_tas_array { ptr, count, stride }),
        layout!(drm_tas_submit_graph {
            extensions,
            nodes,
            edges,
            waits,
            signals,
            flags,
            pad,
            graph_id,
            error_array,
            error_index,
        }),
        layout!(drm_tas_node_info {
            queued_ns,
            ready_ns,
            started_ns,
            finished_ns,
            error,
            ring,
            tag,
        }),
        layout!(drm_tas_graph_info {
            graph_id,
            nodes,
            flags,
            done,
            node_count,
            error_node,
            error,
            pad
        }),
        layout!(drm_tas_template_create {
            extensions,
            nodes,
            edges,
            flags,
            handle,
            error_array,
            error_index,
            slots,
            pad,
        }),
        layout!(drm_tas_bind {
            slot,
            handle,
            offset
        }),
        layout!(drm_tas_template_launch {
            handle,
            flags,
            waits,
            signals,
            graph_id,
            error_array,
            error_index,
            binds,
        }),
        layout!(drm_tas_template_destroy { handle, pad }),
        layout!(drm_tas_host_done {
            graph_id,
            node,
            error,
            flags,
            pad
        }),
    ]
}

macro_rules! consts {
    ($($name:ident),* $(,)?) => {
        vec![$((stringify!($name), $name as u64)),*]
    };
}

fn constants() -> Vec<(&'static str, u64)> {
    consts![
        DRM_COMMAND_BASE,
        DRM_TAS_PARAM_VERSION,
        DRM_TAS_PARAM_NUM_RINGS,
        DRM_TAS_PARAM_MAX_NODES,
        DRM_TAS_PARAM_MAX_EDGES,
        DRM_TAS_PARAM_MAX_WAITS,
        DRM_TAS_PARAM_MAX_SIGNALS,
        DRM_TAS_PARAM_OPS,
        DRM_TAS_PARAM_MAX_BO_SIZE,
        DRM_TAS_PARAM_MAX_DURATION_NS,
        DRM_TAS_PARAM_JOB_TIMEOUT_NS,
        DRM_TAS_PARAM_RING_DEPTH,
        DRM_TAS_PARAM_MAX_STRIDE,
        DRM_TAS_PARAM_MAX_NODES_IN_FLIGHT,
        DRM_TAS_PARAM_MAX_TEMPLATE_NODES,
        DRM_TAS_PARAM_MAX_KEPT_NODES,
        DRM_TAS_PARAM_MAX_KEPT_GRAPHS,
        DRM_TAS_PARAM_HOST_TIMEOUT_NS,
        DRM_TAS_OP_NOP,
        DRM_TAS_OP_FILL,
        DRM_TAS_OP_COPY,
        DRM_TAS_OP_ADD,
        DRM_TAS_OP_MATMUL,
        DRM_TAS_OP_HOST,
        DRM_TAS_CLASS_NORMAL,
        DRM_TAS_CLASS_LATENCY,
        DRM_TAS_CLASS_BATCH,
        DRM_TAS_NODE_GRAPH,
        DRM_TAS_SYNC_ON_START,
        DRM_TAS_SUBMIT_FIFO,
        DRM_TAS_SUBMIT_KEEP,
        DRM_TAS_GRAPH_INFO_RELEASE,
        DRM_TAS_GRAPH_INFO_SUMMARY,
        DRM_TAS_ERROR_NONE,
        DRM_TAS_ERROR_NODES,
        DRM_TAS_ERROR_EDGES,
        DRM_TAS_ERROR_WAITS,
        DRM_TAS_ERROR_SIGNALS,
        DRM_TAS_ERROR_BINDS,
        DRM_TAS_LAUNCH_BINDS,
        DRM_TAS_LAUNCH_ORDERED,
        DRM_TAS_GET_PARAM,
        DRM_TAS_BO_CREATE,
        DRM_TAS_BO_MMAP_OFFSET,
        DRM_TAS_SUBMIT_GRAPH,
        DRM_TAS_GRAPH_INFO,
        DRM_TAS_TEMPLATE_CREATE,
        DRM_TAS_TEMPLATE_LAUNCH,
        DRM_TAS_TEMPLATE_DESTROY,
        DRM_TAS_HOST_DONE,
        DRM_IOCTL_TAS_GET_PARAM,
        DRM_IOCTL_TAS_BO_CREATE,
        DRM_IOCTL_TAS_BO_MMAP_OFFSET,
        DRM_IOCTL_TAS_SUBMIT_GRAPH,
        DRM_IOCTL_TAS_GRAPH_INFO,
        DRM_IOCTL_TAS_TEMPLATE_CREATE,
        DRM_IOCTL_TAS_TEMPLATE_LAUNCH,
        DRM_IOCTL_TAS_TEMPLATE_DESTROY,
        DRM_IOCTL_TAS_HOST_DONE,
    ]
}

fn env_path(name: &str) -> Option<PathBuf> {
    match std::env::var_os(name) {
        Some(v) if !v.is_empty() => Some(PathBuf::from(v)),
        _ => None,
    }
}

/// Whether `tas_drm.h`'s `#include "drm.h"` finds the header with `dir`
/// and `dir/drm` as `-I` directories.
fn has_drm_h(dir: &Path) -> bool {
    dir.join("drm/drm.h").is_file() || dir.join("drm.h").is_file()
}

/// Writes a stand-in `drm.h` into `dir` (see the module documentation).
fn stand_in_drm_h(dir: &Path) {
    let text = format!(
        "/* Stand-in for the kernel's drm.h, written by tas-rs tests/layout.rs. */\n\
         #ifndef _DRM_H_\n#define _DRM_H_\n\
         #include <linux/types.h>\n#include <linux/ioctl.h>\n\
         #define DRM_IOCTL_BASE {base}\n\
         #define DRM_IOW(nr, type) _IOW(DRM_IOCTL_BASE, nr, type)\n\
         #define DRM_IOWR(nr, type) _IOWR(DRM_IOCTL_BASE, nr, type)\n\
         #define DRM_COMMAND_BASE {command}\n\
         #endif\n",
        base = drm_sys::DRM_IOCTL_BASE,
        command = drm_sys::DRM_COMMAND_BASE,
    );
    std::fs::write(dir.join("drm.h"), text).unwrap();
}

/// The C program: one line per structure size, field and constant.
fn c_program(header: &Path, structs: &[Struct], constants: &[(&str, u64)]) -> String {
    let mut c = String::from("#include <stddef.h>\n#include <stdio.h>\n");
    c += &format!("#include \"{}\"\n\nint main(void)\n{{\n", header.display());
    for s in structs {
        c += &format!(
            "\tprintf(\"size {n} %zu\\n\", sizeof(struct {n}));\n",
            n = s.name
        );
        for (f, _, _) in &s.fields {
            c += &format!(
                "\tprintf(\"field {n}.{f} %zu %zu\\n\", offsetof(struct {n}, {f}), \
                 sizeof(((struct {n} *)0)->{f}));\n",
                n = s.name
            );
        }
    }
    for (name, _) in constants {
        c += &format!("\tprintf(\"const {name} %llu\\n\", (unsigned long long)({name}));\n");
    }
    c += "\treturn 0;\n}\n";
    c
}

/// Names of the structures and of the `DRM_TAS_*`/`DRM_IOCTL_TAS_*`
/// constants (enumerators and macros) that the header defines.
fn header_names(text: &str) -> (BTreeSet<String>, BTreeSet<String>) {
    let mut structs = BTreeSet::new();
    let mut consts = BTreeSet::new();
    for line in text.lines() {
        let t = line.trim();
        if let Some(rest) = t.strip_prefix("struct drm_tas_") {
            if let Some(name) = rest.strip_suffix('{') {
                structs.insert(format!("drm_tas_{}", name.trim()));
            }
        }
        let ident = t
            .strip_prefix("#define ")
            .unwrap_or(t)
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .next()
            .unwrap_or("");
        let is_const = ident.starts_with("DRM_TAS_") || ident.starts_with("DRM_IOCTL_TAS_");
        let defines = t.starts_with("#define ") || t[ident.len()..].trim_start().starts_with('=');
        if is_const && defines && !ident.ends_with("_H__") {
            consts.insert(ident.to_string());
        }
    }
    (structs, consts)
}

#[test]
fn uapi_layout_matches_header() {
    let header = env_path("TAS_UAPI_HEADER").unwrap_or_else(|| {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../include-uapi/tas_drm.h")
    });
    let header = header
        .canonicalize()
        .unwrap_or_else(|e| panic!("TAS_UAPI_HEADER={}: {e}; {HOWTO}", header.display()));
    let text = std::fs::read_to_string(&header).unwrap();

    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("layout");
    std::fs::create_dir_all(&dir).unwrap();
    let include = match env_path("TAS_UAPI_INCLUDE") {
        Some(include) => {
            assert!(
                has_drm_h(&include),
                "TAS_UAPI_INCLUDE={} has no drm/drm.h or drm.h; {HOWTO}",
                include.display()
            );
            include
        }
        None => DEFAULT_INCLUDES
            .iter()
            .map(PathBuf::from)
            .find(|d| has_drm_h(d))
            .unwrap_or_else(|| {
                let stand_in = dir.join("stand-in");
                std::fs::create_dir_all(&stand_in).unwrap();
                stand_in_drm_h(&stand_in);
                println!("no drm.h in {DEFAULT_INCLUDES:?}: using a stand-in over <linux/types.h>");
                stand_in
            }),
    };

    let structs = structs();
    let constants = constants();

    // Nothing of the header is missing on the Rust side.
    let (c_structs, c_consts) = header_names(&text);
    let r_structs: BTreeSet<String> = structs.iter().map(|s| s.name.to_string()).collect();
    let r_consts: BTreeSet<String> = constants.iter().map(|(n, _)| n.to_string()).collect();
    let missing: Vec<_> = c_structs.difference(&r_structs).collect();
    assert!(
        missing.is_empty(),
        "structures not in tas::uapi: {missing:?}"
    );
    let missing: Vec<_> = c_consts.difference(&r_consts).collect();
    assert!(
        missing.is_empty(),
        "constants not in tas::uapi: {missing:?}"
    );

    let src = dir.join("layout.c");
    let exe = dir.join("layout");
    std::fs::write(&src, c_program(&header, &structs, &constants)).unwrap();

    // "drm.h" (quoted, in tas_drm.h) is looked up in the header's own
    // directory, then in the -I directories: give it the drm/ one.
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".to_string());
    let out = Command::new(&cc)
        .arg("-std=gnu11")
        .arg("-Wall")
        .arg("-I")
        .arg(&include)
        .arg("-I")
        .arg(include.join("drm"))
        .arg("-o")
        .arg(&exe)
        .arg(&src)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {cc}: {e}"));
    assert!(
        out.status.success(),
        "{cc} failed on {} (-I {}):\n{}\n{HOWTO}",
        src.display(),
        include.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    let out = Command::new(&exe).output().unwrap();
    assert!(out.status.success());
    let stdout = String::from_utf8(out.stdout).unwrap();

    let mut c: BTreeMap<String, Vec<u64>> = BTreeMap::new();
    for line in stdout.lines() {
        let mut words = line.split_whitespace();
        let (kind, name) = (words.next().unwrap(), words.next().unwrap());
        let values = words.map(|w| w.parse().unwrap()).collect();
        c.insert(format!("{kind} {name}"), values);
    }

    let mut errors = Vec::new();
    let mut checked = 0;
    let mut check = |key: String, rust: Vec<u64>| {
        checked += 1;
        match c.get(&key) {
            Some(v) if *v == rust => {}
            v => errors.push(format!("{key}: C {v:?}, Rust {rust:?}")),
        }
    };
    for s in &structs {
        check(format!("size {}", s.name), vec![s.size as u64]);
        for (f, off, size) in &s.fields {
            check(
                format!("field {}.{f}", s.name),
                vec![*off as u64, *size as u64],
            );
        }
    }
    for (name, value) in &constants {
        check(format!("const {name}"), vec![*value]);
    }
    assert!(
        errors.is_empty(),
        "tas::uapi differs from {}:\n{}",
        header.display(),
        errors.join("\n")
    );
    println!(
        "{checked} sizes, fields and constants match {} (drm.h from {})",
        header.display(),
        include.display()
    );
}
