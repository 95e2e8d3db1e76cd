#ifndef CLINUX_H
#define CLINUX_H
// Linux calls the Glibc module does not expose, as typed wrappers:
// epoll (whose event struct is packed on x86_64), eventfd and accept4.
#include <stdint.h>
#include <sys/types.h>
#include <sys/socket.h>

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
/// Waits and unpacks up to `max` events into parallel arrays. Returns the count or -1.
int clinux_epoll_wait(int epfd, uint64_t *datas, uint32_t *events, int max, int timeout_ms);
int clinux_eventfd(void);
int clinux_eventfd_signal(int fd);
int clinux_eventfd_drain(int fd);
/// accept4 with SOCK_NONBLOCK | SOCK_CLOEXEC.
int clinux_accept(int fd);
/// Non-blocking, close-on-exec TCP listening socket bound to `host:port` (IPv4 or IPv6 literal).
/// Returns the fd, or -errno.
int clinux_listen_tcp(const char *host, int port, int backlog);
/// The port a bound socket got (for port 0), or -1.
int clinux_local_port(int fd);
int clinux_set_nodelay(int fd);
/// Monotonic clock in nanoseconds.
uint64_t clinux_monotonic_ns(void);
#endif
