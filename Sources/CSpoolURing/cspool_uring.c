// The liburing side of CSpoolURing. See include/CSpoolURing.h for why each function exists.
#if !__has_include(<liburing.h>)
#error "liburing headers not found: apt-get install liburing-dev"
#endif

#include <liburing.h>

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <pthread.h>
#include <sys/eventfd.h>
#include <sys/uio.h>
#include <unistd.h>

#include "CSpoolURing.h"

struct cspool_ring {
  struct io_uring ring;
  // Whether the kernel has IORING_OP_FTRUNCATE (Linux 6.9); probed once, at creation.
  int has_ftruncate;
};

// IORING_OP_FTRUNCATE's number in the kernel's ABI: liburing's headers before 2.6 (Debian 12
// ships 2.3) do not name it, and an enum constant cannot be tested with #ifdef. The opcode is
// optional: a ring without it runs every other operation, and SpoolIO truncates on threads.
#define CSPOOL_IORING_OP_FTRUNCATE 55
#if defined(IO_URING_VERSION_MAJOR) && defined(IO_URING_VERSION_MINOR)
#if IO_URING_VERSION_MAJOR > 2 || (IO_URING_VERSION_MAJOR == 2 && IO_URING_VERSION_MINOR >= 6)
_Static_assert(IORING_OP_FTRUNCATE == CSPOOL_IORING_OP_FTRUNCATE, "IORING_OP_FTRUNCATE moved");
#endif
#endif

// Every opcode SpoolIO prepares; a kernel missing one of them gets the thread backend.
static const int required_opcodes[] = {
  IORING_OP_NOP, IORING_OP_OPENAT, IORING_OP_CLOSE, IORING_OP_READ, IORING_OP_WRITE,
  IORING_OP_FSYNC, IORING_OP_STATX, IORING_OP_ACCEPT, IORING_OP_CONNECT, IORING_OP_RECV,
  IORING_OP_SEND, IORING_OP_TIMEOUT, IORING_OP_ASYNC_CANCEL, IORING_OP_RENAMEAT,
  IORING_OP_UNLINKAT, IORING_OP_FALLOCATE,
};

cspool_ring *cspool_ring_create(unsigned sq_entries, unsigned cq_entries, int *error) {
  cspool_ring *ring = calloc(1, sizeof(*ring));
  if (ring == NULL) {
    *error = -ENOMEM;
    return NULL;
  }
  struct io_uring_params params;
  memset(&params, 0, sizeof(params));
  params.flags = IORING_SETUP_CQSIZE | IORING_SETUP_SUBMIT_ALL | IORING_SETUP_COOP_TASKRUN;
  params.cq_entries = cq_entries;
  int result = io_uring_queue_init_params(sq_entries, &ring->ring, &params);
  if (result == -EINVAL) {
    // Older kernels reject the optional flags; CQSIZE alone dates from 5.5.
    memset(&params, 0, sizeof(params));
    params.flags = IORING_SETUP_CQSIZE;
    params.cq_entries = cq_entries;
    result = io_uring_queue_init_params(sq_entries, &ring->ring, &params);
  }
  if (result < 0) {
    free(ring);
    *error = result;
    return NULL;
  }
  if (!(params.features & IORING_FEAT_NODROP)) {
    io_uring_queue_exit(&ring->ring);
    free(ring);
    *error = -ENOTSUP;
    return NULL;
  }
  struct io_uring_probe *probe = io_uring_get_probe_ring(&ring->ring);
  int supported = probe != NULL;
  for (size_t i = 0; supported && i < sizeof(required_opcodes) / sizeof(int); i++) {
    supported = io_uring_opcode_supported(probe, required_opcodes[i]);
  }
  ring->has_ftruncate =
      supported && io_uring_opcode_supported(probe, CSPOOL_IORING_OP_FTRUNCATE);
  if (probe != NULL) io_uring_free_probe(probe);
  if (!supported) {
    io_uring_queue_exit(&ring->ring);
    free(ring);
    *error = -ENOTSUP;
    return NULL;
  }
  return ring;
}

void cspool_ring_destroy(cspool_ring *ring) {
  io_uring_queue_exit(&ring->ring);
  free(ring);
}

int cspool_ring_supports_ftruncate(const cspool_ring *ring) { return ring->has_ftruncate; }

unsigned cspool_ring_sq_entries(const cspool_ring *ring) { return ring->ring.sq.ring_entries; }
unsigned cspool_ring_cq_entries(const cspool_ring *ring) { return ring->ring.cq.ring_entries; }

unsigned cspool_ring_sq_space_left(cspool_ring *ring) {
  return io_uring_sq_space_left(&ring->ring);
}

unsigned cspool_ring_cq_dropped(const cspool_ring *ring) {
  return __atomic_load_n(ring->ring.cq.koverflow, __ATOMIC_ACQUIRE);
}

int cspool_ring_submit_and_wait(cspool_ring *ring, unsigned wait_nr) {
  return io_uring_submit_and_wait(&ring->ring, wait_nr);
}

unsigned cspool_ring_reap(cspool_ring *ring, cspool_completion *out, unsigned max) {
  struct io_uring_cqe *cqes[64];
  unsigned total = 0;
  while (total < max) {
    unsigned want = max - total < 64 ? max - total : 64;
    // peek_batch flushes the kernel's overflow backlog when IORING_SQ_CQ_OVERFLOW is set.
    unsigned got = io_uring_peek_batch_cqe(&ring->ring, cqes, want);
    if (got == 0) break;
    for (unsigned i = 0; i < got; i++) {
      out[total + i].user_data = cqes[i]->user_data;
      out[total + i].result = cqes[i]->res;
      out[total + i].flags = cqes[i]->flags;
    }
    io_uring_cq_advance(&ring->ring, got);
    total += got;
  }
  return total;
}

#define CSPOOL_GET_SQE(ring, sqe)                        \
  struct io_uring_sqe *sqe = io_uring_get_sqe(&(ring)->ring); \
  if (sqe == NULL) return -EBUSY

int cspool_prep_nop(cspool_ring *ring, uint64_t user_data) {
  CSPOOL_GET_SQE(ring, sqe);
  io_uring_prep_nop(sqe);
  io_uring_sqe_set_data64(sqe, user_data);
  return 0;
}

int cspool_prep_openat(cspool_ring *ring, const char *path, int flags, uint32_t mode,
                       uint64_t user_data) {
  CSPOOL_GET_SQE(ring, sqe);
  io_uring_prep_openat(sqe, AT_FDCWD, path, flags | O_CLOEXEC, mode);
  io_uring_sqe_set_data64(sqe, user_data);
  return 0;
}

int cspool_prep_close(cspool_ring *ring, int fd, uint64_t user_data) {
  CSPOOL_GET_SQE(ring, sqe);
  io_uring_prep_close(sqe, fd);
  io_uring_sqe_set_data64(sqe, user_data);
  return 0;
}

int cspool_prep_read(cspool_ring *ring, int fd, void *buffer, uint32_t count, uint64_t offset,
                     uint64_t user_data) {
  CSPOOL_GET_SQE(ring, sqe);
  io_uring_prep_read(sqe, fd, buffer, count, offset);
  io_uring_sqe_set_data64(sqe, user_data);
  return 0;
}

int cspool_prep_write(cspool_ring *ring, int fd, const void *buffer, uint32_t count,
                      uint64_t offset, uint64_t user_data) {
  CSPOOL_GET_SQE(ring, sqe);
  io_uring_prep_write(sqe, fd, buffer, count, offset);
  io_uring_sqe_set_data64(sqe, user_data);
  return 0;
}

int cspool_prep_fsync(cspool_ring *ring, int fd, uint64_t user_data) {
  CSPOOL_GET_SQE(ring, sqe);
  io_uring_prep_fsync(sqe, fd, 0);
  io_uring_sqe_set_data64(sqe, user_data);
  return 0;
}

int cspool_prep_fdatasync(cspool_ring *ring, int fd, uint64_t user_data) {
  CSPOOL_GET_SQE(ring, sqe);
  io_uring_prep_fsync(sqe, fd, IORING_FSYNC_DATASYNC);
  io_uring_sqe_set_data64(sqe, user_data);
  return 0;
}

int cspool_prep_fallocate(cspool_ring *ring, int fd, int mode, uint64_t offset,
                          uint64_t length, uint64_t user_data) {
  CSPOOL_GET_SQE(ring, sqe);
  io_uring_prep_fallocate(sqe, fd, mode, (off_t)offset, (off_t)length);
  io_uring_sqe_set_data64(sqe, user_data);
  return 0;
}

int cspool_prep_ftruncate(cspool_ring *ring, int fd, uint64_t length, uint64_t user_data) {
  CSPOOL_GET_SQE(ring, sqe);
  // As liburing 2.6's io_uring_prep_ftruncate: the length travels in `off`, and every other
  // field the kernel checks (addr, len, rw_flags, buf_index, splice_fd_in, addr3) is zero.
  io_uring_prep_rw(CSPOOL_IORING_OP_FTRUNCATE, sqe, fd, NULL, 0, length);
  io_uring_sqe_set_data64(sqe, user_data);
  return 0;
}

int cspool_prep_statx(cspool_ring *ring, int fd, const char *path, void *statx_buffer,
                      uint64_t user_data) {
  CSPOOL_GET_SQE(ring, sqe);
  int flags = path[0] == '\0' ? AT_EMPTY_PATH : 0;
  io_uring_prep_statx(sqe, path[0] == '\0' ? fd : AT_FDCWD, path, flags, STATX_BASIC_STATS,
                      (struct statx *)statx_buffer);
  io_uring_sqe_set_data64(sqe, user_data);
  return 0;
}

int cspool_prep_accept(cspool_ring *ring, int fd, uint64_t user_data) {
  CSPOOL_GET_SQE(ring, sqe);
  io_uring_prep_accept(sqe, fd, NULL, NULL, SOCK_CLOEXEC);
  io_uring_sqe_set_data64(sqe, user_data);
  return 0;
}

int cspool_prep_connect(cspool_ring *ring, int fd, const void *address, uint32_t length,
                        uint64_t user_data) {
  CSPOOL_GET_SQE(ring, sqe);
  io_uring_prep_connect(sqe, fd, (const struct sockaddr *)address, length);
  io_uring_sqe_set_data64(sqe, user_data);
  return 0;
}

int cspool_prep_recv(cspool_ring *ring, int fd, void *buffer, uint32_t count,
                     uint64_t user_data) {
  CSPOOL_GET_SQE(ring, sqe);
  io_uring_prep_recv(sqe, fd, buffer, count, 0);
  io_uring_sqe_set_data64(sqe, user_data);
  return 0;
}

int cspool_prep_send(cspool_ring *ring, int fd, const void *buffer, uint32_t count,
                     uint64_t user_data) {
  CSPOOL_GET_SQE(ring, sqe);
  io_uring_prep_send(sqe, fd, buffer, count, MSG_NOSIGNAL);
  io_uring_sqe_set_data64(sqe, user_data);
  return 0;
}

int cspool_prep_timeout(cspool_ring *ring, void *timespec16, int64_t deadline_nanoseconds,
                        uint64_t user_data) {
  CSPOOL_GET_SQE(ring, sqe);
  struct __kernel_timespec *ts = (struct __kernel_timespec *)timespec16;
  ts->tv_sec = deadline_nanoseconds / 1000000000;
  ts->tv_nsec = deadline_nanoseconds % 1000000000;
  io_uring_prep_timeout(sqe, ts, 0, IORING_TIMEOUT_ABS);
  io_uring_sqe_set_data64(sqe, user_data);
  return 0;
}

int cspool_prep_renameat(cspool_ring *ring, const char *from, const char *to,
                         uint64_t user_data) {
  CSPOOL_GET_SQE(ring, sqe);
  io_uring_prep_renameat(sqe, AT_FDCWD, from, AT_FDCWD, to, 0);
  io_uring_sqe_set_data64(sqe, user_data);
  return 0;
}

int cspool_prep_unlinkat(cspool_ring *ring, const char *path, uint64_t user_data) {
  CSPOOL_GET_SQE(ring, sqe);
  io_uring_prep_unlinkat(sqe, AT_FDCWD, path, 0);
  io_uring_sqe_set_data64(sqe, user_data);
  return 0;
}

int cspool_prep_cancel(cspool_ring *ring, uint64_t target, uint64_t user_data) {
  CSPOOL_GET_SQE(ring, sqe);
  io_uring_prep_cancel64(sqe, target, 0);
  io_uring_sqe_set_data64(sqe, user_data);
  return 0;
}

int cspool_prep_cancel_all(cspool_ring *ring, uint64_t user_data) {
  CSPOOL_GET_SQE(ring, sqe);
  io_uring_prep_cancel64(sqe, 0, IORING_ASYNC_CANCEL_ANY);
  io_uring_sqe_set_data64(sqe, user_data);
  return 0;
}

unsigned cspool_statx_size(void) { return sizeof(struct statx); }

int cspool_statx_blocking(int fd, const char *path, void *statx_buffer) {
  int flags = path[0] == '\0' ? AT_EMPTY_PATH : 0;
  int result = statx(path[0] == '\0' ? fd : AT_FDCWD, path, flags, STATX_BASIC_STATS,
                     (struct statx *)statx_buffer);
  return result < 0 ? -errno : 0;
}

int cspool_fallocate_blocking(int fd, int mode, uint64_t offset, uint64_t length) {
  return fallocate(fd, mode, (off_t)offset, (off_t)length) < 0 ? -errno : 0;
}

cspool_file_status cspool_statx_decode(const void *statx_buffer) {
  const struct statx *st = (const struct statx *)statx_buffer;
  cspool_file_status status;
  status.size = st->stx_size;
  status.inode = st->stx_ino;
  status.blocks = st->stx_blocks;
  status.modified_seconds = st->stx_mtime.tv_sec;
  status.modified_nanoseconds = st->stx_mtime.tv_nsec;
  status.mode = st->stx_mode;
  status.link_count = st->stx_nlink;
  status.block_size = st->stx_blksize;
  return status;
}

int cspool_eventfd(int nonblocking, int semaphore) {
  int flags = EFD_CLOEXEC | (nonblocking ? EFD_NONBLOCK : 0) | (semaphore ? EFD_SEMAPHORE : 0);
  int fd = eventfd(0, flags);
  return fd < 0 ? -errno : fd;
}

int cspool_o_direct(void) { return O_DIRECT; }

int cspool_pread_nowait(int fd, void *buffer, uint32_t count, uint64_t offset) {
  struct iovec vector = {.iov_base = buffer, .iov_len = count};
  ssize_t result = preadv2(fd, &vector, 1, (off_t)offset, RWF_NOWAIT);
  return result < 0 ? -errno : (int)result;
}

void cspool_set_current_thread_name(const char *name) {
  char truncated[16];
  strncpy(truncated, name, sizeof(truncated) - 1);
  truncated[sizeof(truncated) - 1] = '\0';
  pthread_setname_np(pthread_self(), truncated);
}

int cspool_accept_cloexec(int fd) {
  int accepted = accept4(fd, NULL, NULL, SOCK_CLOEXEC);
  return accepted < 0 ? -errno : accepted;
}

static double cspool_now_ns(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (double)now.tv_sec * 1e9 + (double)now.tv_nsec;
}

double cspool_benchmark_reads(int fd, unsigned blocks, unsigned block_size, unsigned count,
                              unsigned batch) {
  unsigned slots = batch == 0 ? 1 : batch;
  char *buffer = malloc((size_t)block_size * slots);
  if (buffer == NULL) return -ENOMEM;
  double start;
  if (batch == 0) {
    start = cspool_now_ns();
    for (unsigned i = 0; i < count; i++) {
      if (pread(fd, buffer, block_size, (off_t)(i % blocks) * block_size) != block_size) {
        free(buffer);
        return -EIO;
      }
    }
  } else {
    struct io_uring ring;
    int result = io_uring_queue_init(batch < 8 ? 8 : batch, &ring, 0);
    if (result < 0) {
      free(buffer);
      return result;
    }
    start = cspool_now_ns();
    for (unsigned i = 0; i < count; i += batch) {
      for (unsigned j = 0; j < batch; j++) {
        struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);
        io_uring_prep_read(sqe, fd, buffer + (size_t)j * block_size, block_size,
                           (uint64_t)((i + j) % blocks) * block_size);
      }
      io_uring_submit_and_wait(&ring, batch);
      struct io_uring_cqe *cqes[64];
      unsigned seen = 0;
      while (seen < batch) {
        unsigned got = io_uring_peek_batch_cqe(&ring, cqes, batch - seen < 64 ? batch - seen : 64);
        for (unsigned k = 0; k < got; k++) {
          if (cqes[k]->res != (int)block_size) {
            io_uring_queue_exit(&ring);
            free(buffer);
            return -EIO;
          }
        }
        io_uring_cq_advance(&ring, got);
        seen += got;
        if (got == 0) io_uring_submit_and_wait(&ring, 1);
      }
    }
    io_uring_queue_exit(&ring);
  }
  double elapsed = cspool_now_ns() - start;
  free(buffer);
  return elapsed / count;
}
