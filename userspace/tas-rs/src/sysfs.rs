// SPDX-License-Identifier: MIT
//! Finding the drm/tas nodes in sysfs, without opening the nodes of other
//! drivers.
//!
//! Opening a DRM node read-write to ask for its driver name
//! (`DRM_IOCTL_VERSION`) has side effects on other drivers' devices: it
//! resumes a runtime-suspended GPU, and the first opener of a primary node
//! becomes its DRM master. libdrm's `drmGetDevices2()` therefore reads
//! sysfs first; so does [`tas_minors`].
//!
//! drm/tas registers its DRM device on a *faux device* named `tas`
//! (`faux::Registration::new(c"tas", None)`), which the kernel
//! (`drivers/base/faux.c`) puts on the `faux` bus, in
//! `/sys/devices/faux/tas`. The DRM minors of a device are in
//! `/sys/class/drm/{card,renderD}<minor>`, whose `device` link points to
//! the parent device. A minor belongs to drm/tas when that link's target
//! is named `tas` and the target's `subsystem` link points to the bus
//! named `faux`.
//!
//! The name is what tells drm/tas apart: the bus does not, since vgem and
//! vkms are faux devices too, and neither does `DRIVER=` in the device's
//! `uevent`, which is `faux_driver` for every faux device (the faux bus has
//! one driver, which binds them all). Faux device names are unique on the
//! bus.

use std::io;
use std::path::Path;

/// Where sysfs is mounted.
pub(crate) const SYSFS: &str = "/sys";

/// The name of the faux device that drm/tas registers its DRM device on.
pub(crate) const FAUX_NAME: &str = "tas";

/// The name of the faux bus (`struct bus_type faux_bus_type`).
const FAUX_BUS: &str = "faux";

/// Prefixes of the DRM minors in `class/drm`, in the order to try them:
/// render nodes first (they need no DRM master and are what drm/tas
/// exposes), then primary nodes.
const PREFIXES: [&str; 2] = ["renderD", "card"];

/// The name that the symlink `link` points to (its last component).
fn link_name(link: &Path) -> Option<String> {
    let target = std::fs::read_link(link).ok()?;
    Some(target.file_name()?.to_str()?.to_owned())
}

/// Whether the DRM minor `minor` (a directory of `class/drm`) belongs to a
/// faux device named [`FAUX_NAME`].
fn is_tas(minor: &Path) -> bool {
    let device = minor.join("device");
    link_name(&device).as_deref() == Some(FAUX_NAME)
        && link_name(&device.join("subsystem")).as_deref() == Some(FAUX_BUS)
}

/// The drm/tas DRM minors under `sysfs` (normally `/sys`), by their names
/// in `class/drm` and `/dev/dri`, such as `renderD128`: the render nodes
/// first, then the primary nodes, each in the order of their minor
/// numbers. Entries of `class/drm` that are not minors (connectors such as
/// `card0-HDMI-A-1`, `version`) are left out.
///
/// Errors: those of reading `sysfs/class/drm`, which does not exist when
/// sysfs is not mounted (or no DRM driver is loaded).
pub(crate) fn tas_minors(sysfs: &Path) -> io::Result<Vec<String>> {
    let class = sysfs.join("class/drm");
    let mut found: Vec<(usize, u32, String)> = Vec::new();
    for entry in std::fs::read_dir(&class)? {
        let name = entry?.file_name();
        let Some(name) = name.to_str() else { continue };
        let minor = PREFIXES.iter().enumerate().find_map(|(rank, prefix)| {
            let minor = name.strip_prefix(prefix)?;
            // A number, and nothing else ("card0-HDMI-A-1" is a connector).
            let ok = !minor.is_empty() && minor.bytes().all(|b| b.is_ascii_digit());
            Some((rank, minor.parse::<u32>().ok().filter(|_| ok)?))
        });
        if let Some((rank, minor)) = minor {
            if is_tas(&class.join(name)) {
                found.push((rank, minor, name.to_owned()));
            }
        }
    }
    found.sort();
    Ok(found.into_iter().map(|(_, _, name)| name).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;
    use std::os::unix::fs::symlink;
    use std::path::PathBuf;

    /// A temporary directory, removed on drop.
    struct TempDir(PathBuf);

    impl TempDir {
        fn new(tag: &str) -> Self {
            let path = std::env::temp_dir().join(format!(
                "tas-rs-{tag}-{}-{:?}",
                std::process::id(),
                std::thread::current().id()
            ));
            let _ = fs::remove_dir_all(&path);
            fs::create_dir_all(&path).unwrap();
            TempDir(path)
        }
    }

    impl Drop for TempDir {
        fn drop(&mut self) {
            let _ = fs::remove_dir_all(&self.0);
        }
    }

    /// Adds to the fake sysfs at `root` the device `devices/<device>` on
    /// bus `bus` (a `subsystem` link to `bus/<bus>`) with the DRM minors
    /// `minors`, each in `class/drm` as the kernel links them: a link to
    /// the minor's directory under the device, whose `device` link points
    /// back to the device.
    fn device(root: &Path, device: &str, bus: &str, minors: &[&str]) {
        let dev = root.join("devices").join(device);
        fs::create_dir_all(&dev).unwrap();
        fs::create_dir_all(root.join("bus").join(bus)).unwrap();
        symlink(root.join("bus").join(bus), dev.join("subsystem")).unwrap();
        fs::create_dir_all(root.join("class/drm")).unwrap();
        for minor in minors {
            let dir = dev.join("drm").join(minor);
            fs::create_dir_all(&dir).unwrap();
            // Relative, as in sysfs: drm/<minor>/device -> ../../<device>.
            let name = device.rsplit('/').next().unwrap();
            symlink(format!("../../../{name}"), dir.join("device")).unwrap();
            symlink(
                format!("../../devices/{device}/drm/{minor}"),
                root.join("class/drm").join(minor),
            )
            .unwrap();
            fs::write(dir.join("uevent"), format!("DEVNAME=dri/{minor}\n")).unwrap();
        }
    }

    #[test]
    fn finds_only_tas_render_first() {
        let tmp = TempDir::new("sysfs");
        let root = &tmp.0;
        // Other drivers own the lower minors: a PCI GPU, and vgem and vkms,
        // which are faux devices too.
        device(
            root,
            "pci0000:00/0000:00:02.0",
            "pci",
            &["card0", "renderD128"],
        );
        device(root, "faux/vgem", "faux", &["card1", "renderD129"]);
        device(root, "faux/vkms", "faux", &["card2"]);
        // A device named "tas" on another bus is not drm/tas either.
        device(root, "platform/tas", "platform", &["card3", "renderD130"]);
        device(root, "faux/tas", "faux", &["card10", "renderD131"]);
        // Not minors: a connector of drm/tas's card, and the version file.
        fs::create_dir_all(root.join("devices/faux/tas/drm/card10/card10-Virtual-1")).unwrap();
        symlink(
            "../../devices/faux/tas/drm/card10/card10-Virtual-1",
            root.join("class/drm/card10-Virtual-1"),
        )
        .unwrap();
        fs::write(root.join("class/drm/version"), "drm 1.1.0\n").unwrap();

        assert_eq!(
            tas_minors(root).unwrap(),
            ["renderD131", "card10"],
            "the drm/tas minors, render node first"
        );
    }

    #[test]
    fn orders_by_minor_number() {
        let tmp = TempDir::new("order");
        let root = &tmp.0;
        // The kernel has one faux device named "tas", but the order must
        // not depend on it: two of them, under different parents (a faux
        // device may have a parent), with minors that sort differently as
        // strings and as numbers.
        device(root, "faux/tas", "faux", &["card10", "renderD1000"]);
        device(root, "faux/x/tas", "faux", &["card9", "renderD999"]);
        assert_eq!(
            tas_minors(root).unwrap(),
            ["renderD999", "renderD1000", "card9", "card10"]
        );
    }

    #[test]
    fn no_tas_device() {
        let tmp = TempDir::new("none");
        device(&tmp.0, "faux/vgem", "faux", &["card0", "renderD128"]);
        assert!(tas_minors(&tmp.0).unwrap().is_empty());
    }

    #[test]
    fn no_sysfs() {
        let tmp = TempDir::new("nosys");
        assert!(tas_minors(&tmp.0).is_err());
    }
}
