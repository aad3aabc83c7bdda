/work/main/userspace/tas-py/target/release/deps/pyo3_build_config-dbb8eb2b1236b8c0.d: /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/pyo3-build-config-0.30.1/src/lib.rs /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/pyo3-build-config-0.30.1/src/errors.rs /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/pyo3-build-config-0.30.1/src/impl_.rs

/work/main/userspace/tas-py/target/release/deps/libpyo3_build_config-dbb8eb2b1236b8c0.rlib: /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/pyo3-build-config-0.30.1/src/lib.rs /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/pyo3-build-config-0.30.1/src/errors.rs /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/pyo3-build-config-0.30.1/src/impl_.rs

/work/main/userspace/tas-py/target/release/deps/libpyo3_build_config-dbb8eb2b1236b8c0.rmeta: /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/pyo3-build-config-0.30.1/src/lib.rs /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/pyo3-build-config-0.30.1/src/errors.rs /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/pyo3-build-config-0.30.1/src/impl_.rs

/root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/pyo3-build-config-0.30.1/src/lib.rs:
/root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/pyo3-build-config-0.30.1/src/errors.rs:
/root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/pyo3-build-config-0.30.1/src/impl_.rs:

# env-dep:CARGO_PKG_VERSION=0.30.1
