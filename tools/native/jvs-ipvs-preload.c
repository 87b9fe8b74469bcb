/*
 * jvs-ipvs-preload: makes unmodified ipvsadm and keepalived talk to jvs instead of the kernel's IPVS.
 *
 * Loaded with LD_PRELOAD (tools/jvs with-ipvs does it). A generic netlink socket (socket(AF_NETLINK, ...,
 * NETLINK_GENERIC)) becomes a Unix stream connection to the jvs control socket ($JVS_CONTROL_SOCKET, default
 * /run/jvs/jvs.sock) that opens with a control header of type NETLINK and then carries netlink datagrams both ways,
 * each after its 32-bit big-endian length. The application keeps a datagram socket's behaviour: one whole datagram
 * per receive, MSG_PEEK and MSG_TRUNC (libnl peeks with both to size its buffer), MSG_DONTWAIT, a sockaddr_nl of the
 * kernel (port 0) as the sender, bind/getsockname/connect/setsockopt answered as netlink would, poll readiness.
 * Other sockets, netlink routing sockets included, are the real ones. Reading /proc/net/ip_vs* (ipvsadm -c reads
 * /proc/net/ip_vs_conn with fopen) gets the file's content from the daemon (a control request of type PROC_FILE)
 * in an anonymous memory file.
 *
 * A kernel's netlink socket never loses its other end; a session can lose its daemon, restarted under a program
 * that keeps its socket for its whole life (keepalived does). A session found ended (the stream at its end, or a
 * send refused with EPIPE or ECONNRESET) is replaced by a new connection to the same control socket on the same
 * descriptor, with its flags (one line on standard error says so), and the request it was carrying is sent once
 * more on it, unless part of that request's answer was already given to the program (a dump half read is never
 * asked again). A request that cannot be carried (no daemon at the socket) or whose answer was cut gets the kernel's
 * kind of failure, an NLMSG_ERROR answer for its sequence number, which libnl, ipvsadm and keepalived report:
 * ENODEV ("No such device") when the daemon cannot be reached, EINTR ("Interrupted system call") when an answer was
 * cut after part of it was given; both survive libnl's errno-to-NLE-and-back mapping in keepalived. A failed send
 * would not do: keepalived takes it as a success and says nothing.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

#define JVS_MAGIC 0x4A565343u
#define JVS_VERSION 1
#define JVS_NETLINK 4
#define JVS_PROC_FILE 5
#define JVS_RESULT 0x81
#define JVS_REFUSED 0xFF
#define JVS_HEADER 12
/* As the daemon's limits: a datagram or an answer beyond these is a broken peer, not data. */
#define MAX_DATAGRAM (1u << 20)
#define MAX_ANSWER (1u << 30) /* ControlProtocol.MAX_ANSWER: a /proc/net/ip_vs_conn of millions of entries */
#define MAX_FDS 65536
#define MAX_OPTIONS 16
/* The errno a request gets when no daemon is at the control socket, and when its answer was cut part way. */
#define UNREACHABLE ENODEV
#define CUT EINTR

/* One fake netlink socket: its address as netlink would keep it, and the datagram being received. */
struct nl_fd
{
    uint32_t port;
    uint32_t groups;
    int options[MAX_OPTIONS];       /* SOL_NETLINK option values, by option number */
    unsigned char length[4];
    size_t length_have;
    unsigned char *datagram;
    size_t datagram_length;
    size_t datagram_have;
    int ready;                      /* a whole datagram is buffered (after a peek, or a partial non-blocking read) */
    unsigned char *request;         /* the last datagram sent, with its length before it: to send it again */
    size_t request_length;
    int awaiting;                   /* the last request's answer has not ended (no NLMSG_ERROR or NLMSG_DONE yet) */
    int answered;                   /* part of that answer was given to the program: it is never sent again */
    int resent;                     /* it was sent again on a new session already */
    int ended;                      /* the session ended: a new one is made before the next send */
    int failure;                    /* an errno to answer the last request with (an NLMSG_ERROR), 0 for none */
};

static struct nl_fd *fds[MAX_FDS];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static uint32_t next_port;

static int (*real_socket)(int, int, int);
static int (*real_close)(int);
static int (*real_bind)(int, const struct sockaddr *, socklen_t);
static int (*real_connect)(int, const struct sockaddr *, socklen_t);
static int (*real_getsockname)(int, struct sockaddr *, socklen_t *);
static int (*real_getpeername)(int, struct sockaddr *, socklen_t *);
static int (*real_setsockopt)(int, int, int, const void *, socklen_t);
static int (*real_getsockopt)(int, int, int, void *, socklen_t *);
static ssize_t (*real_sendmsg)(int, const struct msghdr *, int);
static ssize_t (*real_sendto)(int, const void *, size_t, int, const struct sockaddr *, socklen_t);
static ssize_t (*real_send)(int, const void *, size_t, int);
static ssize_t (*real_recvmsg)(int, struct msghdr *, int);
static ssize_t (*real_recvfrom)(int, void *, size_t, int, struct sockaddr *, socklen_t *);
static ssize_t (*real_recv)(int, void *, size_t, int);
static ssize_t (*real_read)(int, void *, size_t);
static ssize_t (*real_write)(int, const void *, size_t);
static int (*real_poll)(struct pollfd *, nfds_t, int);
static FILE *(*real_fopen)(const char *, const char *);
static FILE *(*real_fopen64)(const char *, const char *);
static int (*real_open)(const char *, int, ...);
static int (*real_open64)(const char *, int, ...);
static int (*real_openat)(int, const char *, int, ...);

static void *next_symbol(const char *name)
{
    void *symbol = dlsym(RTLD_NEXT, name);
    if (symbol == NULL)
    {
        fprintf(stderr, "jvs-ipvs: no %s after the preload library: %s\n", name, dlerror());
        abort();
    }
    return symbol;
}

#define RESOLVE(name) do { if (real_##name == NULL) { real_##name = next_symbol(#name); } } while (0)

static void resolve_all(void)
{
    RESOLVE(socket); RESOLVE(close); RESOLVE(bind); RESOLVE(connect); RESOLVE(getsockname); RESOLVE(getpeername);
    RESOLVE(setsockopt); RESOLVE(getsockopt); RESOLVE(sendmsg); RESOLVE(sendto); RESOLVE(send); RESOLVE(recvmsg);
    RESOLVE(recvfrom); RESOLVE(recv); RESOLVE(read); RESOLVE(write); RESOLVE(poll); RESOLVE(fopen);
    RESOLVE(fopen64); RESOLVE(open); RESOLVE(open64); RESOLVE(openat);
}

static struct nl_fd *lookup(const int fd)
{
    if (fd < 0 || fd >= MAX_FDS)
    {
        return NULL;
    }
    return __atomic_load_n(&fds[fd], __ATOMIC_ACQUIRE);
}

static const char *socket_path(void)
{
    const char *path = getenv("JVS_CONTROL_SOCKET");
    return path != NULL && path[0] != '\0' ? path : "/run/jvs/jvs.sock";
}

static void put32(unsigned char *to, const uint32_t value)
{
    to[0] = (unsigned char)(value >> 24);
    to[1] = (unsigned char)(value >> 16);
    to[2] = (unsigned char)(value >> 8);
    to[3] = (unsigned char)value;
}

static uint32_t get32(const unsigned char *from)
{
    return (uint32_t)from[0] << 24 | (uint32_t)from[1] << 16 | (uint32_t)from[2] << 8 | (uint32_t)from[3];
}

static void control_header(unsigned char *header, const int type, const uint32_t length)
{
    put32(header, JVS_MAGIC);
    header[4] = JVS_VERSION;
    header[5] = (unsigned char)type;
    header[6] = 0;
    header[7] = 0;
    put32(header + 8, length);
}

/* Writes all of it, waiting for room when the descriptor is non-blocking: a datagram is never sent in part. */
static int write_all(const int fd, const unsigned char *bytes, size_t length)
{
    while (length > 0)
    {
        const ssize_t written = real_send(fd, bytes, length, MSG_NOSIGNAL);
        if (written < 0)
        {
            if (errno == EINTR)
            {
                continue;
            }
            if (errno == EAGAIN || errno == EWOULDBLOCK)
            {
                struct pollfd wait = {.fd = fd, .events = POLLOUT};
                real_poll(&wait, 1, -1);
                continue;
            }
            return -1;
        }
        bytes += written;
        length -= (size_t)written;
    }
    return 0;
}

/* Reads exactly this much, blocking (used only on descriptors this library made blocking). */
static int read_all(const int fd, unsigned char *bytes, size_t length)
{
    while (length > 0)
    {
        const ssize_t got = real_recv(fd, bytes, length, 0);
        if (got < 0 && errno == EINTR)
        {
            continue;
        }
        if (got <= 0)
        {
            if (got == 0)
            {
                errno = ECONNRESET;
            }
            return -1;
        }
        bytes += got;
        length -= (size_t)got;
    }
    return 0;
}

static int connect_control(void)
{
    const char *path = socket_path();
    struct sockaddr_un address = {.sun_family = AF_UNIX};
    if (strlen(path) >= sizeof(address.sun_path))
    {
        fprintf(stderr, "jvs-ipvs: the control socket path %s is too long\n", path);
        errno = ENAMETOOLONG;
        return -1;
    }
    strcpy(address.sun_path, path);
    const int fd = real_socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
    {
        return -1;
    }
    if (real_connect(fd, (const struct sockaddr *)&address, sizeof(address)) < 0)
    {
        const int error = errno;
        fprintf(stderr, "jvs-ipvs: cannot reach the jvs control socket %s: %s\n", path, strerror(error));
        real_close(fd);
        errno = error;
        return -1;
    }
    return fd;
}

/* The daemon answered a connection with a control frame (a refusal) where a datagram length was due. */
static void report_refusal(const int fd, const unsigned char *first)
{
    unsigned char header[JVS_HEADER];
    memcpy(header, first, 4);
    if (read_all(fd, header + 4, JVS_HEADER - 4) == 0)
    {
        const uint32_t length = get32(header + 8);
        if (length <= 4096)
        {
            char reason[4097];
            if (read_all(fd, (unsigned char *)reason, length) == 0)
            {
                reason[length] = '\0';
                fprintf(stderr, "jvs-ipvs: the jvs daemon refused: %s\n", reason);
            }
        }
    }
}

int socket(int domain, int type, int protocol)
{
    resolve_all();
    if (domain != AF_NETLINK || protocol != NETLINK_GENERIC)
    {
        return real_socket(domain, type, protocol);
    }
    const int kind = type & ~(SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (kind != SOCK_RAW && kind != SOCK_DGRAM)
    {
        errno = ESOCKTNOSUPPORT;
        return -1;
    }
    struct nl_fd *state = calloc(1, sizeof(*state));
    if (state == NULL)
    {
        errno = ENOBUFS;
        return -1;
    }
    const int fd = connect_control();
    if (fd < 0)
    {
        free(state);
        return -1;
    }
    if (fd >= MAX_FDS)
    {
        real_close(fd);
        free(state);
        errno = EMFILE;
        return -1;
    }
    unsigned char header[JVS_HEADER];
    control_header(header, JVS_NETLINK, 0);
    if (write_all(fd, header, sizeof(header)) < 0)
    {
        const int error = errno;
        real_close(fd);
        free(state);
        errno = error;
        return -1;
    }
    if (!(type & SOCK_CLOEXEC))
    {
        fcntl(fd, F_SETFD, 0);
    }
    if (type & SOCK_NONBLOCK)
    {
        fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    }
    __atomic_store_n(&fds[fd], state, __ATOMIC_RELEASE);
    return fd;
}

static void forget(const int fd)
{
    struct nl_fd *state = lookup(fd);
    if (state != NULL)
    {
        __atomic_store_n(&fds[fd], NULL, __ATOMIC_RELEASE);
        free(state->datagram);
        free(state->request);
        free(state);
    }
}

int close(int fd)
{
    resolve_all();
    forget(fd);
    return real_close(fd);
}

/* netlink_autobind gives the process id to the first socket, then distinct negative ids. */
static uint32_t autobind(void)
{
    pthread_mutex_lock(&lock);
    uint32_t port;
    if (next_port == 0)
    {
        port = (uint32_t)getpid();
        next_port = (uint32_t)-4096;
    }
    else
    {
        port = next_port--;
    }
    pthread_mutex_unlock(&lock);
    return port;
}

int bind(int fd, const struct sockaddr *address, socklen_t length)
{
    resolve_all();
    struct nl_fd *state = lookup(fd);
    if (state == NULL)
    {
        return real_bind(fd, address, length);
    }
    if (address == NULL || length < sizeof(struct sockaddr_nl) || address->sa_family != AF_NETLINK)
    {
        errno = EINVAL;
        return -1;
    }
    const struct sockaddr_nl *nl = (const struct sockaddr_nl *)address;
    if (state->port != 0 && nl->nl_pid != 0 && nl->nl_pid != state->port)
    {
        errno = EINVAL;
        return -1;
    }
    if (state->port == 0)
    {
        state->port = nl->nl_pid != 0 ? nl->nl_pid : autobind();
    }
    state->groups = nl->nl_groups;
    return 0;
}

int connect(int fd, const struct sockaddr *address, socklen_t length)
{
    resolve_all();
    struct nl_fd *state = lookup(fd);
    if (state == NULL)
    {
        return real_connect(fd, address, length);
    }
    if (address == NULL || length < sizeof(sa_family_t) || address->sa_family != AF_NETLINK)
    {
        errno = EINVAL;
        return -1;
    }
    if (state->port == 0)
    {
        state->port = autobind();
    }
    return 0;
}

static void fill_address(struct sockaddr *address, socklen_t *length, const uint32_t port, const uint32_t groups)
{
    struct sockaddr_nl nl;
    memset(&nl, 0, sizeof(nl));
    nl.nl_family = AF_NETLINK;
    nl.nl_pid = port;
    nl.nl_groups = groups;
    if (address != NULL && length != NULL)
    {
        memcpy(address, &nl, *length < sizeof(nl) ? *length : sizeof(nl));
    }
    if (length != NULL)
    {
        *length = sizeof(nl);
    }
}

int getsockname(int fd, struct sockaddr *address, socklen_t *length)
{
    resolve_all();
    struct nl_fd *state = lookup(fd);
    if (state == NULL)
    {
        return real_getsockname(fd, address, length);
    }
    if (state->port == 0)
    {
        state->port = autobind();
    }
    fill_address(address, length, state->port, state->groups);
    return 0;
}

int getpeername(int fd, struct sockaddr *address, socklen_t *length)
{
    resolve_all();
    if (lookup(fd) == NULL)
    {
        return real_getpeername(fd, address, length);
    }
    fill_address(address, length, 0, 0);
    return 0;
}

int setsockopt(int fd, int level, int name, const void *value, socklen_t length)
{
    resolve_all();
    struct nl_fd *state = lookup(fd);
    if (state == NULL)
    {
        return real_setsockopt(fd, level, name, value, length);
    }
    if (level == SOL_NETLINK)
    {
        if (value == NULL || length < sizeof(int))
        {
            errno = EINVAL;
            return -1;
        }
        if (name >= 0 && name < MAX_OPTIONS)
        {
            state->options[name] = *(const int *)value;
        }
        return 0;
    }
    if (level == SOL_SOCKET)
    {
        switch (name)
        {
            case SO_PASSCRED:
            case SO_TIMESTAMP:
            case SO_SNDBUFFORCE:
            case SO_RCVBUFFORCE:
                return 0;
            default:
                return real_setsockopt(fd, level, name, value, length);
        }
    }
    errno = ENOPROTOOPT;
    return -1;
}

static int answer_int(void *value, socklen_t *length, const int answer)
{
    if (value == NULL || length == NULL || *length < sizeof(int))
    {
        errno = EINVAL;
        return -1;
    }
    *(int *)value = answer;
    *length = sizeof(int);
    return 0;
}

int getsockopt(int fd, int level, int name, void *value, socklen_t *length)
{
    resolve_all();
    struct nl_fd *state = lookup(fd);
    if (state == NULL)
    {
        return real_getsockopt(fd, level, name, value, length);
    }
    if (level == SOL_NETLINK)
    {
        return answer_int(value, length, name >= 0 && name < MAX_OPTIONS ? state->options[name] : 0);
    }
    if (level == SOL_SOCKET)
    {
        switch (name)
        {
            case SO_TYPE:
                return answer_int(value, length, SOCK_RAW);
            case SO_DOMAIN:
                return answer_int(value, length, AF_NETLINK);
            case SO_PROTOCOL:
                return answer_int(value, length, NETLINK_GENERIC);
            default:
                return real_getsockopt(fd, level, name, value, length);
        }
    }
    errno = ENOPROTOOPT;
    return -1;
}

/* The ways a send or a receive says that the daemon's end of the session is gone. */
static int session_ended(const int error)
{
    return error == EPIPE || error == ECONNRESET || error == ECONNREFUSED || error == ENOTCONN;
}

/* Forgets a datagram read in part from a session that ended: the rest of it will never come. */
static void drop_partial(struct nl_fd *state)
{
    if (!state->ready)
    {
        free(state->datagram);
        state->datagram = NULL;
        state->datagram_length = 0;
        state->datagram_have = 0;
        state->length_have = 0;
    }
}

/*
 * Replaces the ended session with a new one to the same control socket, on the same descriptor number (dup3), with
 * the descriptor's close-on-exec and non-blocking flags, so that the program's descriptor goes on working.
 */
static int reconnect(const int fd, struct nl_fd *state)
{
    const int fresh = connect_control();
    if (fresh < 0)
    {
        return -1;
    }
    unsigned char header[JVS_HEADER];
    control_header(header, JVS_NETLINK, 0);
    const int descriptor_flags = fcntl(fd, F_GETFD);
    const int status_flags = fcntl(fd, F_GETFL);
    if (descriptor_flags < 0 || status_flags < 0 || write_all(fresh, header, sizeof(header)) < 0 ||
        ((status_flags & O_NONBLOCK) && fcntl(fresh, F_SETFL, fcntl(fresh, F_GETFL) | O_NONBLOCK) < 0) ||
        dup3(fresh, fd, (descriptor_flags & FD_CLOEXEC) ? O_CLOEXEC : 0) < 0)
    {
        const int error = errno;
        real_close(fresh);
        errno = error;
        return -1;
    }
    real_close(fresh);
    drop_partial(state);
    state->ended = 0;
    fprintf(stderr, "jvs-ipvs: the session with the jvs daemon at %s had ended; reconnected (a restarted daemon has "
        "only its configuration's services)\n", socket_path());
    return 0;
}

/* Sends the last request once more, on a new session. */
static int resend(const int fd, struct nl_fd *state)
{
    state->resent = 1;
    if (reconnect(fd, state) < 0)
    {
        return -1;
    }
    if (write_all(fd, state->request, state->request_length) < 0)
    {
        state->ended = 1;
        return -1;
    }
    return 0;
}

/* One datagram out: its length, then its bytes gathered from the vector. */
static ssize_t send_datagram(const int fd, struct nl_fd *state, const struct iovec *vector, const size_t count)
{
    size_t total = 0;
    for (size_t i = 0; i < count; i++)
    {
        total += vector[i].iov_len;
    }
    if (total > MAX_DATAGRAM)
    {
        errno = EMSGSIZE;
        return -1;
    }
    unsigned char *bytes = malloc(total + 4);
    if (bytes == NULL)
    {
        errno = ENOBUFS;
        return -1;
    }
    put32(bytes, (uint32_t)total);
    size_t at = 4;
    for (size_t i = 0; i < count; i++)
    {
        memcpy(bytes + at, vector[i].iov_base, vector[i].iov_len);
        at += vector[i].iov_len;
    }
    free(state->request);
    state->request = bytes;
    state->request_length = total + 4;
    state->awaiting = 1;
    state->answered = 0;
    state->resent = 0;
    state->failure = 0;
    if (!state->ended)
    {
        if (write_all(fd, bytes, total + 4) == 0)
        {
            return (ssize_t)total;
        }
        if (!session_ended(errno))
        {
            state->awaiting = 0;
            return -1;
        }
        state->ended = 1;
    }
    if (resend(fd, state) < 0)
    {
        /* As a kernel without the family would: the request is taken, and its answer is an error. */
        state->failure = UNREACHABLE;
    }
    return (ssize_t)total;
}

/*
 * The answer the kernel gives a request it refuses (netlink_ack): an NLMSG_ERROR with -errno and the request's
 * header (NLM_F_CAPPED), its sequence number and port, made the buffered datagram.
 */
static int answer_failure(struct nl_fd *state)
{
    const int error = state->failure;
    state->failure = 0;
    if (state->request == NULL || state->request_length < 4 + NLMSG_HDRLEN)
    {
        errno = error;
        return -1;
    }
    struct nlmsghdr request;
    memcpy(&request, state->request + 4, sizeof(request));
    const size_t length = NLMSG_HDRLEN + sizeof(struct nlmsgerr);
    unsigned char *answer = calloc(1, length);
    if (answer == NULL)
    {
        errno = ENOBUFS;
        return -1;
    }
    const struct nlmsghdr header = {.nlmsg_len = (uint32_t)length, .nlmsg_type = NLMSG_ERROR,
        .nlmsg_flags = NLM_F_CAPPED, .nlmsg_seq = request.nlmsg_seq, .nlmsg_pid = request.nlmsg_pid};
    struct nlmsgerr body = {.error = -error, .msg = request};
    memcpy(answer, &header, sizeof(header));
    memcpy(answer + NLMSG_HDRLEN, &body, sizeof(body));
    free(state->datagram);
    state->datagram = answer;
    state->datagram_length = length;
    state->datagram_have = length;
    state->length_have = 4;
    state->ready = 1;
    return 0;
}

/*
 * The program waits for an answer and the session has ended: the request is sent again on a new session if nothing
 * of its answer was given yet and it was not sent again already; otherwise it is answered with an error. With no
 * request waiting, a new session is made to wait on, as a netlink socket would just wait.
 */
static int session_lost(const int fd, struct nl_fd *state, const int dontwait)
{
    drop_partial(state);
    if (state->awaiting)
    {
        if (!state->answered && !state->resent && resend(fd, state) == 0)
        {
            return 0;
        }
        state->failure = state->answered ? CUT : UNREACHABLE;
        return 0;
    }
    if (dontwait)
    {
        errno = EAGAIN;
        return -1;
    }
    if (reconnect(fd, state) < 0)
    {
        errno = UNREACHABLE;
        return -1;
    }
    return 0;
}

/*
 * Reads towards the next whole datagram, never past it, so that the stream holds exactly what the application has
 * not yet been given and poll on it tells the truth. Returns 0 when one is buffered, -1 with errno otherwise
 * (EAGAIN when non-blocking and it is not all here yet; what came so far is kept).
 */
static int fill_datagram(const int fd, struct nl_fd *state, const int dontwait)
{
    const int flags = dontwait ? MSG_DONTWAIT : 0;
    while (!state->ready)
    {
        if (state->failure != 0)
        {
            return answer_failure(state);
        }
        if (state->ended)
        {
            if (session_lost(fd, state, dontwait) < 0)
            {
                return -1;
            }
            continue;
        }
        unsigned char *into;
        size_t want;
        if (state->length_have < 4)
        {
            into = state->length + state->length_have;
            want = 4 - state->length_have;
        }
        else
        {
            into = state->datagram + state->datagram_have;
            want = state->datagram_length - state->datagram_have;
        }
        ssize_t got = want == 0 ? 0 : real_recv(fd, into, want, flags);
        if (want != 0 && got <= 0)
        {
            if (got == 0 || session_ended(errno))
            {
                state->ended = 1;
                continue;
            }
            return -1;
        }
        if (state->length_have < 4)
        {
            state->length_have += (size_t)got;
            if (state->length_have < 4)
            {
                continue;
            }
            const uint32_t length = get32(state->length);
            if (length == JVS_MAGIC)
            {
                report_refusal(fd, state->length);
                state->length_have = 0;
                state->ended = 1;
                state->awaiting = 0;
                errno = EPERM;
                return -1;
            }
            if (length > MAX_DATAGRAM)
            {
                fprintf(stderr, "jvs-ipvs: the daemon sent a datagram of %u bytes (at most %u)\n", length,
                    MAX_DATAGRAM);
                errno = EPROTO;
                return -1;
            }
            state->datagram = malloc(length == 0 ? 1 : length);
            if (state->datagram == NULL)
            {
                errno = ENOBUFS;
                return -1;
            }
            state->datagram_length = length;
            state->datagram_have = 0;
        }
        else
        {
            state->datagram_have += (size_t)got;
        }
        if (state->datagram_have == state->datagram_length)
        {
            state->ready = 1;
        }
    }
    return 0;
}

/* Whether the datagram ends the last request's answer: an error or acknowledgement, a dump's end, or a reply. */
static int ends_answer(const struct nl_fd *state)
{
    int acknowledged = 1;
    if (state->request != NULL && state->request_length >= 4 + NLMSG_HDRLEN)
    {
        struct nlmsghdr request;
        memcpy(&request, state->request + 4, sizeof(request));
        acknowledged = (request.nlmsg_flags & NLM_F_ACK) != 0;
    }
    size_t at = 0;
    while (at + NLMSG_HDRLEN <= state->datagram_length)
    {
        struct nlmsghdr message;
        memcpy(&message, state->datagram + at, sizeof(message));
        if (message.nlmsg_type == NLMSG_ERROR || message.nlmsg_type == NLMSG_DONE ||
            (!(message.nlmsg_flags & NLM_F_MULTI) && !acknowledged))
        {
            return 1;
        }
        if (message.nlmsg_len < NLMSG_HDRLEN)
        {
            break;
        }
        at += NLMSG_ALIGN(message.nlmsg_len);
    }
    return 0;
}

static void consume(struct nl_fd *state)
{
    free(state->datagram);
    state->datagram = NULL;
    state->datagram_length = 0;
    state->datagram_have = 0;
    state->length_have = 0;
    state->ready = 0;
}

/* One datagram in, as netlink_recvmsg gives it: cut to the buffer with MSG_TRUNC, its full length on request. */
static ssize_t receive_datagram(const int fd, struct nl_fd *state, struct iovec *vector, const size_t count,
    const int flags, int *message_flags)
{
    if (flags & MSG_ERRQUEUE)
    {
        errno = EAGAIN;
        return -1;
    }
    if (fill_datagram(fd, state, flags & MSG_DONTWAIT) < 0)
    {
        return -1;
    }
    size_t copied = 0;
    for (size_t i = 0; i < count && copied < state->datagram_length; i++)
    {
        size_t part = state->datagram_length - copied;
        if (part > vector[i].iov_len)
        {
            part = vector[i].iov_len;
        }
        memcpy(vector[i].iov_base, state->datagram + copied, part);
        copied += part;
    }
    const size_t length = state->datagram_length;
    if (message_flags != NULL)
    {
        *message_flags = copied < length ? MSG_TRUNC : 0;
    }
    if (state->awaiting)
    {
        state->answered = 1;
    }
    if (!(flags & MSG_PEEK))
    {
        if (state->awaiting && ends_answer(state))
        {
            state->awaiting = 0;
        }
        consume(state);
    }
    return (ssize_t)(flags & MSG_TRUNC ? length : copied);
}

ssize_t sendmsg(int fd, const struct msghdr *message, int flags)
{
    resolve_all();
    struct nl_fd *state = lookup(fd);
    if (state == NULL)
    {
        return real_sendmsg(fd, message, flags);
    }
    return send_datagram(fd, state, message->msg_iov, message->msg_iovlen);
}

ssize_t sendto(int fd, const void *bytes, size_t length, int flags, const struct sockaddr *to, socklen_t to_length)
{
    resolve_all();
    struct nl_fd *state = lookup(fd);
    if (state == NULL)
    {
        return real_sendto(fd, bytes, length, flags, to, to_length);
    }
    const struct iovec one = {.iov_base = (void *)bytes, .iov_len = length};
    return send_datagram(fd, state, &one, 1);
}

ssize_t send(int fd, const void *bytes, size_t length, int flags)
{
    resolve_all();
    struct nl_fd *state = lookup(fd);
    if (state == NULL)
    {
        return real_send(fd, bytes, length, flags);
    }
    const struct iovec one = {.iov_base = (void *)bytes, .iov_len = length};
    return send_datagram(fd, state, &one, 1);
}

ssize_t write(int fd, const void *bytes, size_t length)
{
    resolve_all();
    struct nl_fd *state = lookup(fd);
    if (state == NULL)
    {
        return real_write(fd, bytes, length);
    }
    const struct iovec one = {.iov_base = (void *)bytes, .iov_len = length};
    return send_datagram(fd, state, &one, 1);
}

ssize_t recvmsg(int fd, struct msghdr *message, int flags)
{
    resolve_all();
    struct nl_fd *state = lookup(fd);
    if (state == NULL)
    {
        return real_recvmsg(fd, message, flags);
    }
    int message_flags = 0;
    const ssize_t result = receive_datagram(fd, state, message->msg_iov, message->msg_iovlen, flags, &message_flags);
    if (result < 0)
    {
        return result;
    }
    if (message->msg_name != NULL)
    {
        socklen_t length = message->msg_namelen;
        fill_address(message->msg_name, &length, 0, 0);
        message->msg_namelen = length;
    }
    message->msg_controllen = 0;
    message->msg_flags = message_flags;
    return result;
}

ssize_t recvfrom(int fd, void *bytes, size_t length, int flags, struct sockaddr *from, socklen_t *from_length)
{
    resolve_all();
    struct nl_fd *state = lookup(fd);
    if (state == NULL)
    {
        return real_recvfrom(fd, bytes, length, flags, from, from_length);
    }
    struct iovec one = {.iov_base = bytes, .iov_len = length};
    const ssize_t result = receive_datagram(fd, state, &one, 1, flags, NULL);
    if (result >= 0 && from != NULL)
    {
        fill_address(from, from_length, 0, 0);
    }
    return result;
}

ssize_t recv(int fd, void *bytes, size_t length, int flags)
{
    resolve_all();
    struct nl_fd *state = lookup(fd);
    if (state == NULL)
    {
        return real_recv(fd, bytes, length, flags);
    }
    struct iovec one = {.iov_base = bytes, .iov_len = length};
    return receive_datagram(fd, state, &one, 1, flags, NULL);
}

ssize_t read(int fd, void *bytes, size_t length)
{
    resolve_all();
    struct nl_fd *state = lookup(fd);
    if (state == NULL)
    {
        return real_read(fd, bytes, length);
    }
    struct iovec one = {.iov_base = bytes, .iov_len = length};
    return receive_datagram(fd, state, &one, 1, 0, NULL);
}

/* A datagram already buffered (peeked), or an error answer to be made, is readable though the stream may be empty. */
int poll(struct pollfd *set, nfds_t count, int timeout)
{
    resolve_all();
    int buffered = 0;
    for (nfds_t i = 0; i < count; i++)
    {
        struct nl_fd *state = lookup(set[i].fd);
        if (state != NULL && (state->ready || state->failure != 0) && (set[i].events & POLLIN))
        {
            buffered = 1;
        }
    }
    if (!buffered)
    {
        return real_poll(set, count, timeout);
    }
    int ready = real_poll(set, count, 0);
    if (ready < 0)
    {
        return ready;
    }
    ready = 0;
    for (nfds_t i = 0; i < count; i++)
    {
        struct nl_fd *state = lookup(set[i].fd);
        if (state != NULL && (state->ready || state->failure != 0) && (set[i].events & POLLIN))
        {
            set[i].revents |= POLLIN;
        }
        if (set[i].revents != 0)
        {
            ready++;
        }
    }
    return ready;
}

/* ------------------------------------------------------------------------------------------------------------- */
/* /proc/net/ip_vs* from the daemon                                                                              */

static int served_path(const char *path)
{
    return path != NULL && strncmp(path, "/proc/net/ip_vs", 15) == 0;
}

static int write_all_file(const int fd, const unsigned char *bytes, size_t length)
{
    while (length > 0)
    {
        const ssize_t written = real_write(fd, bytes, length);
        if (written < 0 && errno == EINTR)
        {
            continue;
        }
        if (written < 0)
        {
            return -1;
        }
        bytes += written;
        length -= (size_t)written;
    }
    return 0;
}

/* @return a memory file holding the daemon's content for the path, positioned at its start; -1 with errno. */
static int proc_file(const char *path)
{
    const size_t path_length = strlen(path);
    const int fd = connect_control();
    if (fd < 0)
    {
        return -1;
    }
    unsigned char header[JVS_HEADER];
    control_header(header, JVS_PROC_FILE, (uint32_t)path_length);
    unsigned char answer[JVS_HEADER];
    if (write_all(fd, header, sizeof(header)) < 0 || write_all(fd, (const unsigned char *)path, path_length) < 0 ||
        read_all(fd, answer, sizeof(answer)) < 0)
    {
        const int error = errno;
        real_close(fd);
        errno = error == EPIPE ? ECONNRESET : error;
        return -1;
    }
    const uint32_t length = get32(answer + 8);
    if (get32(answer) != JVS_MAGIC || answer[4] != JVS_VERSION || length > MAX_ANSWER)
    {
        fprintf(stderr, "jvs-ipvs: a malformed answer for %s from %s\n", path, socket_path());
        real_close(fd);
        errno = EPROTO;
        return -1;
    }
    unsigned char *payload = malloc(length + 1);
    if (payload == NULL || read_all(fd, payload, length) < 0)
    {
        free(payload);
        real_close(fd);
        errno = EIO;
        return -1;
    }
    real_close(fd);
    payload[length] = '\0';
    if (answer[5] == JVS_REFUSED)
    {
        fprintf(stderr, "jvs-ipvs: the jvs daemon refused %s: %s\n", path, (const char *)payload);
        free(payload);
        errno = EACCES;
        return -1;
    }
    /* RESULT: a status (0, or the errno the file's open gets), then the content and an error text. */
    if (answer[5] != JVS_RESULT || length < 12)
    {
        free(payload);
        errno = EPROTO;
        return -1;
    }
    const uint32_t status = get32(payload);
    const uint32_t content = get32(payload + 4);
    if (content > length - 12 || get32(payload + 8 + content) != length - 12 - content)
    {
        free(payload);
        errno = EPROTO;
        return -1;
    }
    if (status != 0)
    {
        free(payload);
        errno = (int)status;
        return -1;
    }
    const int file = memfd_create("jvs-ipvs-proc", MFD_CLOEXEC);
    if (file < 0)
    {
        const int error = errno;
        free(payload);
        errno = error;
        return -1;
    }
    const int written = write_all_file(file, payload + 8, content);
    free(payload);
    if (written < 0 || lseek(file, 0, SEEK_SET) < 0)
    {
        const int error = errno;
        real_close(file);
        errno = error;
        return -1;
    }
    return file;
}

static int reading(const int flags)
{
    return (flags & O_ACCMODE) == O_RDONLY;
}

static FILE *proc_stream(const char *path, const char *mode)
{
    if (mode[0] != 'r' || strchr(mode, '+') != NULL)
    {
        errno = EACCES;
        return NULL;
    }
    const int fd = proc_file(path);
    if (fd < 0)
    {
        return NULL;
    }
    FILE *stream = fdopen(fd, "r");
    if (stream == NULL)
    {
        const int error = errno;
        real_close(fd);
        errno = error;
    }
    return stream;
}

FILE *fopen(const char *path, const char *mode)
{
    resolve_all();
    return served_path(path) ? proc_stream(path, mode) : real_fopen(path, mode);
}

FILE *fopen64(const char *path, const char *mode)
{
    resolve_all();
    return served_path(path) ? proc_stream(path, mode) : real_fopen64(path, mode);
}

static int proc_open(const char *path, const int flags)
{
    if (!reading(flags))
    {
        errno = EACCES;
        return -1;
    }
    return proc_file(path);
}

static mode_t mode_argument(const int flags, va_list arguments)
{
    return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE ? (mode_t)va_arg(arguments, int) : 0;
}

int open(const char *path, int flags, ...)
{
    resolve_all();
    va_list arguments;
    va_start(arguments, flags);
    const mode_t mode = mode_argument(flags, arguments);
    va_end(arguments);
    return served_path(path) ? proc_open(path, flags) : real_open(path, flags, mode);
}

int open64(const char *path, int flags, ...)
{
    resolve_all();
    va_list arguments;
    va_start(arguments, flags);
    const mode_t mode = mode_argument(flags, arguments);
    va_end(arguments);
    return served_path(path) ? proc_open(path, flags) : real_open64(path, flags, mode);
}

int openat(int directory, const char *path, int flags, ...)
{
    resolve_all();
    va_list arguments;
    va_start(arguments, flags);
    const mode_t mode = mode_argument(flags, arguments);
    va_end(arguments);
    return served_path(path) ? proc_open(path, flags) : real_openat(directory, path, flags, mode);
}
