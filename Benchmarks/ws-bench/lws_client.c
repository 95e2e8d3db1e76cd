// The libwebsockets shape of ws-bench's client (Debian's libwebsockets-dev 4.1.6), for docs/WEBSOCKET.md:
// COUNT idle client sockets to URL's host:port/path, RSS growth per socket, then ECHOES round trips on one.
// Build: cc -O2 -o lws_client lws_client.c -lwebsockets   Run: ./lws_client HOST PORT PATH COUNT TLS(0|1) CAFILE ECHOES
#include <libwebsockets.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static int opened, failed, echoed, echoes, count;
static struct lws *first;

static long rss_kb(void) {
    long pages = 0, resident = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (f) { if (fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = 0; fclose(f); }
    return resident * sysconf(_SC_PAGESIZE) / 1024;
}

static double cpu_seconds(void) {
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return u.ru_utime.tv_sec + u.ru_stime.tv_sec + (u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

static int send_text(struct lws *wsi, const char *text) {
    unsigned char buf[LWS_PRE + 64];
    size_t n = strlen(text);
    memcpy(buf + LWS_PRE, text, n);
    return lws_write(wsi, buf + LWS_PRE, n, LWS_WRITE_TEXT);
}

static int callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in, size_t len) {
    (void)user; (void)in; (void)len;
    switch (reason) {
    case LWS_CALLBACK_CLIENT_ESTABLISHED: opened++; break;
    case LWS_CALLBACK_CLIENT_CONNECTION_ERROR: failed++; break;
    case LWS_CALLBACK_CLIENT_RECEIVE:
        echoed++;
        if (echoed < echoes) lws_callback_on_writable(wsi);
        break;
    case LWS_CALLBACK_CLIENT_WRITEABLE: send_text(wsi, "ping"); break;
    default: break;
    }
    return 0;
}

static const struct lws_protocols protocols[] = {{"bench", callback, 0, 4096, 0, NULL, 0}, {NULL, NULL, 0, 0, 0, NULL, 0}};

int main(int argc, char **argv) {
    if (argc < 8) { fprintf(stderr, "usage: HOST PORT PATH COUNT TLS CAFILE ECHOES\n"); return 2; }
    count = atoi(argv[4]);
    int tls = atoi(argv[5]);
    echoes = atoi(argv[7]);
    lws_set_log_level(LLL_ERR, NULL);
    struct lws_context_creation_info info;
    memset(&info, 0, sizeof info);
    info.port = CONTEXT_PORT_NO_LISTEN;
    info.protocols = protocols;
    info.fd_limit_per_thread = count + 64;
    if (tls) { info.options = LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT; info.client_ssl_ca_filepath = argv[6]; }
    struct lws_context *context = lws_create_context(&info);
    if (!context) return 3;
    long before = rss_kb();
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (int i = 0; i < count; i++) {
        struct lws_client_connect_info c;
        memset(&c, 0, sizeof c);
        c.context = context;
        c.address = argv[1];
        c.port = atoi(argv[2]);
        c.path = argv[3];
        c.host = argv[1];
        c.origin = argv[1];
        c.protocol = NULL;
        c.ssl_connection = tls ? LCCSCF_USE_SSL : 0;
        struct lws *wsi = lws_client_connect_via_info(&c);
        if (i == 0) first = wsi;
        if (i % 64 == 63) lws_service(context, 0);
    }
    while (opened + failed < count) lws_service(context, 50);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    long after = rss_kb();
    printf("sockets %d open, %d failed in %.2f s\n", opened, failed,
           (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9);
    printf("rss before %ld KB, after %ld KB, per socket %ld B\n", before, after, (after - before) * 1024 / (opened ? opened : 1));
    if (echoes > 0 && first) {
        double c0 = cpu_seconds();
        clock_gettime(CLOCK_MONOTONIC, &t0);
        lws_callback_on_writable(first);
        while (echoed < echoes) lws_service(context, 50);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        double wall = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
        printf("echo %d round trips: %.1f us client CPU each, %.0f per s\n", echoes,
               (cpu_seconds() - c0) / echoes * 1e6, echoes / wall);
    }
    lws_context_destroy(context);
    return 0;
}
