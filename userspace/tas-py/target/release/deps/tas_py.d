/work/main/userspace/tas-py/target/release/deps/tas_py.d: src/lib.rs

/work/main/userspace/tas-py/target/release/deps/libtas_py.so: src/lib.rs

src/lib.rs:
