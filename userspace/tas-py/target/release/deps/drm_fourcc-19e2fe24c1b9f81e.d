/work/main/userspace/tas-py/target/release/deps/drm_fourcc-19e2fe24c1b9f81e.d: /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/drm-fourcc-2.2.0/src/lib.rs /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/drm-fourcc-2.2.0/src/as_enum.rs /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/drm-fourcc-2.2.0/src/consts.rs

/work/main/userspace/tas-py/target/release/deps/libdrm_fourcc-19e2fe24c1b9f81e.rlib: /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/drm-fourcc-2.2.0/src/lib.rs /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/drm-fourcc-2.2.0/src/as_enum.rs /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/drm-fourcc-2.2.0/src/consts.rs

/work/main/userspace/tas-py/target/release/deps/libdrm_fourcc-19e2fe24c1b9f81e.rmeta: /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/drm-fourcc-2.2.0/src/lib.rs /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/drm-fourcc-2.2.0/src/as_enum.rs /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/drm-fourcc-2.2.0/src/consts.rs

/root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/drm-fourcc-2.2.0/src/lib.rs:
/root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/drm-fourcc-2.2.0/src/as_enum.rs:
/root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/drm-fourcc-2.2.0/src/consts.rs:
