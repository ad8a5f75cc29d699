// CSpoolURing: the only code in Spool that includes <liburing.h>.
//
// Why this target exists: Swift cannot import <liburing.h> directly (the header defines
// _GNU_SOURCE/_XOPEN_SOURCE, so `fd_set` and friends differ from SwiftGlibc's), and most of
// liburing is `static inline`. This header therefore declares only small `cspool_` functions
// over an opaque ring; each one exists because Swift cannot reach the liburing call it wraps.
//
// Conventions: functions that can fail return 0 (or a count) on success and a negated errno on
// failure, like the kernel. `prep` functions return -EBUSY when the submission queue has no free
// entry; nothing is queued in that case.
#ifndef CSPOOL_URING_H
#define CSPOOL_URING_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// An io_uring instance. Owned by SpoolIO's ring handle; used only from its loop thread.
typedef struct cspool_ring cspool_ring;

/// One completion, copied out of the completion queue.
typedef struct cspool_completion {
  uint64_t user_data;
  int32_t result;
  uint32_t flags;
} cspool_completion;

/// The fields of a `statx` result that Spool reports.
typedef struct cspool_file_status {
  uint64_t size;
  uint64_t inode;
  uint64_t blocks;
  int64_t modified_seconds;
  uint32_t modified_nanoseconds;
  uint32_t mode;
  uint32_t link_count;
  uint32_t block_size;
} cspool_file_status;

/// Creates a ring with `sq_entries` submission and `cq_entries` completion entries.
/// Fails with -ENOTSUP when the kernel lacks a feature or opcode Spool relies on
/// (IORING_FEAT_NODROP, and every opcode SpoolIO prepares). On failure returns NULL and stores
/// the negated errno in `*error`.
cspool_ring *cspool_ring_create(unsigned sq_entries, unsigned cq_entries, int *error);
void cspool_ring_destroy(cspool_ring *ring);
/// Whether the ring's kernel has IORING_OP_FTRUNCATE (Linux 6.9): 1 or 0. Optional, unlike the
/// opcodes a ring is refused without; `cspool_prep_ftruncate` needs it.
int cspool_ring_supports_ftruncate(const cspool_ring *ring);
unsigned cspool_ring_sq_entries(const cspool_ring *ring);
unsigned cspool_ring_cq_entries(const cspool_ring *ring);
/// Free entries in the submission queue.
unsigned cspool_ring_sq_space_left(cspool_ring *ring);
/// Completions the kernel dropped because the completion queue was full (0 with NODROP).
unsigned cspool_ring_cq_dropped(const cspool_ring *ring);
/// Submits every prepared entry with one `io_uring_enter` and waits for `wait_nr` completions.
/// Returns the number submitted or a negated errno (-EINTR, -EBUSY, -EAGAIN, ...).
int cspool_ring_submit_and_wait(cspool_ring *ring, unsigned wait_nr);
/// Copies up to `max` completions into `out`, marks them seen, returns how many were copied.
/// Flushes completions the kernel held back on overflow when the queue signals it.
unsigned cspool_ring_reap(cspool_ring *ring, cspool_completion *out, unsigned max);

int cspool_prep_nop(cspool_ring *ring, uint64_t user_data);
int cspool_prep_openat(cspool_ring *ring, const char *path, int flags, uint32_t mode,
                       uint64_t user_data);
int cspool_prep_close(cspool_ring *ring, int fd, uint64_t user_data);
/// `offset` of UINT64_MAX means "the file position" (appending for O_APPEND files).
int cspool_prep_read(cspool_ring *ring, int fd, void *buffer, uint32_t count, uint64_t offset,
                     uint64_t user_data);
int cspool_prep_write(cspool_ring *ring, int fd, const void *buffer, uint32_t count,
                      uint64_t offset, uint64_t user_data);
int cspool_prep_fsync(cspool_ring *ring, int fd, uint64_t user_data);
/// `fdatasync` on the ring: IORING_OP_FSYNC with IORING_FSYNC_DATASYNC.
int cspool_prep_fdatasync(cspool_ring *ring, int fd, uint64_t user_data);
/// `fallocate(fd, mode, offset, length)` on the ring: IORING_OP_FALLOCATE. `mode` takes
/// Linux's FALLOC_FL_* bits (SpoolIO's `IOFile.SpaceMode`).
int cspool_prep_fallocate(cspool_ring *ring, int fd, int mode, uint64_t offset,
                          uint64_t length, uint64_t user_data);
/// `ftruncate(fd, length)` on the ring: IORING_OP_FTRUNCATE, which liburing before 2.6 cannot
/// prepare. Only on a ring where `cspool_ring_supports_ftruncate` is 1.
int cspool_prep_ftruncate(cspool_ring *ring, int fd, uint64_t length, uint64_t user_data);
/// `path` may be "" with `fd` set to stat an open descriptor (AT_EMPTY_PATH).
/// `statx_buffer` must hold `cspool_statx_size()` bytes.
int cspool_prep_statx(cspool_ring *ring, int fd, const char *path, void *statx_buffer,
                      uint64_t user_data);
int cspool_prep_accept(cspool_ring *ring, int fd, uint64_t user_data);
int cspool_prep_connect(cspool_ring *ring, int fd, const void *address, uint32_t length,
                        uint64_t user_data);
int cspool_prep_recv(cspool_ring *ring, int fd, void *buffer, uint32_t count,
                     uint64_t user_data);
int cspool_prep_send(cspool_ring *ring, int fd, const void *buffer, uint32_t count,
                     uint64_t user_data);
/// An absolute CLOCK_MONOTONIC deadline; `timespec16` points to 16 bytes the caller keeps alive
/// until the completion arrives (the kernel reads them when the entry is submitted).
int cspool_prep_timeout(cspool_ring *ring, void *timespec16, int64_t deadline_nanoseconds,
                        uint64_t user_data);
/// Renames `from` to `to` (both relative to the working directory for relative paths).
int cspool_prep_renameat(cspool_ring *ring, const char *from, const char *to,
                         uint64_t user_data);
/// Removes the file at `path`.
int cspool_prep_unlinkat(cspool_ring *ring, const char *path, uint64_t user_data);
/// Cancels the request whose user data is `target`.
int cspool_prep_cancel(cspool_ring *ring, uint64_t target, uint64_t user_data);
/// Cancels every request in flight (IORING_ASYNC_CANCEL_ANY).
int cspool_prep_cancel_all(cspool_ring *ring, uint64_t user_data);

/// `eventfd(2)`: SwiftGlibc does not export <sys/eventfd.h>. Returns the descriptor or -errno.
int cspool_eventfd(int nonblocking, int semaphore);
/// `accept4(fd, NULL, NULL, SOCK_CLOEXEC)` (a GNU extension SwiftGlibc lacks); fd or -errno.
int cspool_accept_cloexec(int fd);
/// `O_DIRECT`, whose value differs between architectures (it needs _GNU_SOURCE, which
/// SwiftGlibc lacks).
int cspool_o_direct(void);
/// `preadv2(fd, {buffer, count}, 1, offset, RWF_NOWAIT)`: reads what the page cache holds
/// without waiting for the device; `-EAGAIN` when nothing is cached (preadv2 and RWF_NOWAIT
/// need _GNU_SOURCE, which SwiftGlibc lacks). Returns the count read or a negated errno.
int cspool_pread_nowait(int fd, void *buffer, uint32_t count, uint64_t offset);
/// Names the calling thread (`pthread_setname_np` needs _GNU_SOURCE, which SwiftGlibc lacks).
void cspool_set_current_thread_name(const char *name);

/// Size of the kernel's `struct statx`.
unsigned cspool_statx_size(void);
/// Blocking `statx`, for the thread backend; returns 0 or a negated errno.
int cspool_statx_blocking(int fd, const char *path, void *statx_buffer);
/// Blocking `fallocate` (a GNU extension SwiftGlibc lacks), for the thread backend; returns 0
/// or a negated errno.
int cspool_fallocate_blocking(int fd, int mode, uint64_t offset, uint64_t length);
/// Reads the fields Spool reports out of a filled `statx` buffer.
cspool_file_status cspool_statx_decode(const void *statx_buffer);

/// The C baseline of SpoolIO's file-read benchmark (the liburing calls are inline, so Swift
/// cannot time them itself): `count` reads of `block_size` bytes from `fd`, cycling over
/// `blocks` blocks, `batch` per `io_uring_enter` on a private ring; `batch` 0 times blocking
/// `pread` instead. Returns nanoseconds per read, or a negated errno.
double cspool_benchmark_reads(int fd, unsigned blocks, unsigned block_size, unsigned count,
                              unsigned batch);

#ifdef __cplusplus
}
#endif

#endif
