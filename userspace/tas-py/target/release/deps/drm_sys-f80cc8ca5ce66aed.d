/work/main/userspace/tas-py/target/release/deps/drm_sys-f80cc8ca5ce66aed.d: /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/drm-sys-0.8.1/src/lib.rs /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/drm-sys-0.8.1/src/bindings.rs

/work/main/userspace/tas-py/target/release/deps/libdrm_sys-f80cc8ca5ce66aed.rlib: /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/drm-sys-0.8.1/src/lib.rs /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/drm-sys-0.8.1/src/bindings.rs

/work/main/userspace/tas-py/target/release/deps/libdrm_sys-f80cc8ca5ce66aed.rmeta: /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/drm-sys-0.8.1/src/lib.rs /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/drm-sys-0.8.1/src/bindings.rs

/root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/drm-sys-0.8.1/src/lib.rs:
/root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/drm-sys-0.8.1/src/bindings.rs:
