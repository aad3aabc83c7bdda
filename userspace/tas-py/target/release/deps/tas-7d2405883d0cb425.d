/work/main/userspace/tas-py/target/release/deps/tas-7d2405883d0cb425.d: /work/main/userspace/tas-rs/src/lib.rs /work/main/userspace/tas-rs/src/bo.rs /work/main/userspace/tas-rs/src/device.rs /work/main/userspace/tas-rs/src/error.rs /work/main/userspace/tas-rs/src/graph.rs /work/main/userspace/tas-rs/src/ioctl.rs /work/main/userspace/tas-rs/src/syncobj.rs /work/main/userspace/tas-rs/src/uapi.rs /work/main/userspace/tas-rs/src/../README.md

/work/main/userspace/tas-py/target/release/deps/libtas-7d2405883d0cb425.rlib: /work/main/userspace/tas-rs/src/lib.rs /work/main/userspace/tas-rs/src/bo.rs /work/main/userspace/tas-rs/src/device.rs /work/main/userspace/tas-rs/src/error.rs /work/main/userspace/tas-rs/src/graph.rs /work/main/userspace/tas-rs/src/ioctl.rs /work/main/userspace/tas-rs/src/syncobj.rs /work/main/userspace/tas-rs/src/uapi.rs /work/main/userspace/tas-rs/src/../README.md

/work/main/userspace/tas-py/target/release/deps/libtas-7d2405883d0cb425.rmeta: /work/main/userspace/tas-rs/src/lib.rs /work/main/userspace/tas-rs/src/bo.rs /work/main/userspace/tas-rs/src/device.rs /work/main/userspace/tas-rs/src/error.rs /work/main/userspace/tas-rs/src/graph.rs /work/main/userspace/tas-rs/src/ioctl.rs /work/main/userspace/tas-rs/src/syncobj.rs /work/main/userspace/tas-rs/src/uapi.rs /work/main/userspace/tas-rs/src/../README.md

/work/main/userspace/tas-rs/src/lib.rs:
/work/main/userspace/tas-rs/src/bo.rs:
/work/main/userspace/tas-rs/src/device.rs:
/work/main/userspace/tas-rs/src/error.rs:
/work/main/userspace/tas-rs/src/graph.rs:
/work/main/userspace/tas-rs/src/ioctl.rs:
/work/main/userspace/tas-rs/src/syncobj.rs:
/work/main/userspace/tas-rs/src/uapi.rs:
/work/main/userspace/tas-rs/src/../README.md:
