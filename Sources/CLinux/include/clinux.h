#ifndef CLINUX_H
#define CLINUX_H
// Linux calls the Glibc module does not expose, as typed wrappers:
// epoll (whose event struct is packed on x86_64), eventfd, accept4 and the batched datagram calls.
#include <stdint.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>

#define CLINUX_EPOLLIN 0x001u
#define CLINUX_EPOLLOUT 0x004u
#define CLINUX_EPOLLERR 0x008u
#define CLINUX_EPOLLHUP 0x010u
#define CLINUX_EPOLLRDHUP 0x2000u
#define CLINUX_EPOLLEXCLUSIVE (1u << 28)
#define CLINUX_EPOLLET (1u << 31)

int clinux_epoll_create(void);
/// op: 1 add, 2 delete, 3 modify (EPOLL_CTL_*).
int clinux_epoll_ctl(int epfd, int op, int fd, uint32_t events, uint64_t data);
/// Waits and unpacks up to `max` events into parallel arrays. Returns the count, or -1 with errno set (an
/// interrupted wait too: call it through Swift's `SystemCall.wait`, which retries).
int clinux_epoll_wait(int epfd, uint64_t *datas, uint32_t *events, int max, int timeout_ms);
/// The same with a timeout in nanoseconds (negative: no limit), by epoll_pwait2(2) (Linux 5.11): a wait can end
/// inside a millisecond, so a loop can carry its earliest timer's deadline in the wait itself instead of a timerfd
/// (a timerfd_settime to arm it and a read to clear it per expiry). Where the kernel lacks epoll_pwait2 (ENOSYS,
/// remembered), epoll_wait with the timeout rounded up to whole milliseconds: never earlier than asked.
int clinux_epoll_wait_ns(int epfd, uint64_t *datas, uint32_t *events, int max, int64_t timeout_ns);
/// Whether `clinux_epoll_wait_ns` has fallen back to epoll_wait (it found no epoll_pwait2). For tests, `set` 1
/// makes it fall back from now on, as on a kernel without epoll_pwait2, and 0 lets it try epoll_pwait2 again;
/// -1 only asks.
int clinux_epoll_wait_ns_fallback(int set);
/// The calling thread's timer slack (PR_SET_TIMERSLACK), in nanoseconds: how late the kernel may end its timed
/// waits to batch wake-ups (50 µs by default); 0 restores the default.
int clinux_set_timer_slack(uint64_t ns);
int clinux_eventfd(void);
/// An eventfd registered with EPOLLET needs no read to clear it: every write is a new edge, reported once.
int clinux_eventfd_signal(int fd);
int clinux_eventfd_drain(int fd);
/// Names the calling thread (the kernel keeps the first 15 bytes): what perf and /proc/PID/task/*/comm show.
void clinux_name_thread(const char *name);
/* The calling thread to `policy` (SCHED_OTHER 0, SCHED_BATCH 3, SCHED_IDLE 5) at priority 0 (0, or -1 with
 * errno); out of SCHED_IDLE there is no way back without CAP_SYS_NICE. */
int clinux_set_thread_policy(int policy);
/* The calling thread's scheduling policy (SCHED_OTHER 0, SCHED_FIFO 1, SCHED_BATCH 3, SCHED_IDLE 5), without the
 * reset-on-fork flag. */
int clinux_thread_policy(void);
/* The calling thread to SCHED_FIFO at `priority` (1...99) with SCHED_RESET_ON_FORK, so threads it starts run at
 * SCHED_OTHER; needs CAP_SYS_NICE or an RLIMIT_RTPRIO of at least `priority` (0, or -1 with errno EPERM, and the
 * thread keeps its policy). */
int clinux_set_thread_realtime(int priority);
/* The calling thread's real-time priority (0 under SCHED_OTHER, SCHED_BATCH and SCHED_IDLE), or -1. */
int clinux_thread_realtime_priority(void);
/* The calling thread's nice value (setpriority on its TID: per thread on Linux); 0 or -1 with errno. */
int clinux_set_thread_nice(int nice);
int clinux_thread_nice(void);
/* The calling thread's requested time slice (sched_setattr's sched_runtime under SCHED_OTHER/SCHED_BATCH, Linux
   >= 6.12 with EEVDF; the kernel clamps it to 0.1...100 ms; 0 returns to the default), keeping its policy and
   nice; 0 or -1 with errno. */
int clinux_set_thread_slice(uint64_t ns);
/* The calling thread's slice in nanoseconds as sched_getattr reports it (the default when none was asked for;
   0 on kernels before 6.12), or -1 with errno. */
int64_t clinux_thread_slice(void);
/// The calling thread's name (a per-thread buffer, valid until the next call on that thread).
const char *clinux_thread_name(void);
/// accept4 with SOCK_NONBLOCK | SOCK_CLOEXEC.
int clinux_accept(int fd);
/// Non-blocking, close-on-exec TCP listening socket bound to `host:port` (IPv4 or IPv6 literal).
/// Returns the fd, or -errno.
int clinux_listen_tcp(const char *host, int port, int backlog);
/// Whether UDP `port` on the IPv4 literal `host` is free: binds a socket there and closes it at once. Returns 0
/// when the bind succeeded (the port was free), else -errno (-EADDRINUSE: something holds it).
int clinux_probe_udp_bind(const char *host, int port);
/// The port a bound socket got (for port 0), or -1.
int clinux_local_port(int fd);
int clinux_set_nodelay(int fd);
/// Starts a non-blocking, close-on-exec TCP connect to `host:port` (IPv4 or IPv6 literal). Returns the fd,
/// whose connect may still be in progress (wait for EPOLLOUT, then read `clinux_socket_error`), or -errno.
int clinux_connect_tcp(const char *host, int port);
/// The pending error of a socket (SO_ERROR): 0 once a non-blocking connect succeeded, else the errno.
int clinux_socket_error(int fd);
/// SO_LINGER {1, 0}: the next close() sends RST instead of FIN and discards unsent data.
int clinux_set_linger_reset(int fd);
/// The most datagrams one `clinux_recvmmsg` or `clinux_sendmmsg` moves (the message headers live on the C stack).
#define CLINUX_MMSG_MAX 64
/// recvmmsg(2) with MSG_DONTWAIT: up to `count` (at most CLINUX_MMSG_MAX) datagrams in one call, the i-th into
/// `buffers + i * stride` (at most `stride` bytes; a longer one is truncated), its length into `lengths[i]` and, when
/// `sources` is not NULL, its IPv4 sender into `sources[i]`. Returns how many arrived (at least 1), or -1 with
/// errno set (EAGAIN: none waiting; EINTR: retry, as `SystemCall` does).
int clinux_recvmmsg(int fd, void *buffers, uint32_t stride, uint32_t count, uint32_t *lengths,
                    struct sockaddr_in *sources);
/// `clinux_recvmmsg`, and when `stamps` is not NULL the kernel's receive time of the i-th datagram into `stamps[i]`
/// (CLOCK_REALTIME ns, from the SO_TIMESTAMPNS control message `clinux_set_receive_stamps` asks for; 0 without).
int clinux_recvmmsg_stamped(int fd, void *buffers, uint32_t stride, uint32_t count, uint32_t *lengths,
                            struct sockaddr_in *sources, uint64_t *stamps);
/// SO_TIMESTAMPNS on: each datagram read carries the time the kernel received it. 0, or -1 with errno set.
int clinux_set_receive_stamps(int fd);
/// CLOCK_REALTIME in nanoseconds: the clock SO_TIMESTAMPNS stamps with.
uint64_t clinux_realtime_ns(void);
/// sendmmsg(2) with MSG_NOSIGNAL | MSG_DONTWAIT: up to `count` (at most CLINUX_MMSG_MAX) datagrams in one call, the
/// i-th `lengths[i]` bytes at `datas[i]` to `targets[i]` (or, when `targets` is NULL, the connected peer).
/// Returns how many the kernel took (the first `n`; the rest were not tried), or -1 with errno set for the first.
int clinux_sendmmsg(int fd, const void *const *datas, const uint32_t *lengths, const struct sockaddr_in *targets,
                    uint32_t count);
/// Monotonic clock in nanoseconds.
uint64_t clinux_monotonic_ns(void);
/// Bytes glibc's malloc has handed out and not freed (mallinfo2: uordblks + hblkhd). Meaningless in a process
/// linked with jemalloc; for tests and benchmarks that measure memory growth.
uint64_t clinux_glibc_heap_in_use(void);
#endif
