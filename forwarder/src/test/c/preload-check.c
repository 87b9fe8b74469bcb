/*
 * Checks, under LD_PRELOAD of the jvs preload library and against a control server with an IPVS backend, that a
 * generic netlink socket behaves as the kernel's: addresses and options, one datagram per receive, MSG_PEEK with
 * MSG_TRUNC, MSG_DONTWAIT, poll readiness for a peeked datagram, truncation, close; that other netlink sockets are
 * the kernel's; and that /proc/net/ip_vs_conn reads come from the daemon. Prints "ok NAME" per check and exits 1 at
 * the first failure, naming it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define CHECK(name, condition) do { if (!(condition)) { printf("FAIL %s (errno %d: %s)\n", name, errno, \
    strerror(errno)); exit(1); } printf("ok %s\n", name); } while (0)

static int request(const int fd, const int type, const int flags, const unsigned seq, const int command,
    const char *family)
{
    unsigned char buffer[64];
    memset(buffer, 0, sizeof(buffer));
    struct nlmsghdr *header = (struct nlmsghdr *)buffer;
    struct genlmsghdr *genl = (struct genlmsghdr *)(buffer + NLMSG_HDRLEN);
    header->nlmsg_type = (unsigned short)type;
    header->nlmsg_flags = (unsigned short)(NLM_F_REQUEST | flags);
    header->nlmsg_seq = seq;
    genl->cmd = (unsigned char)command;
    genl->version = 1;
    size_t length = NLMSG_HDRLEN + GENL_HDRLEN;
    if (family != NULL)
    {
        struct nlattr *attribute = (struct nlattr *)(buffer + length);
        attribute->nla_type = CTRL_ATTR_FAMILY_NAME;
        attribute->nla_len = (unsigned short)(NLA_HDRLEN + strlen(family) + 1);
        memcpy(buffer + length + NLA_HDRLEN, family, strlen(family) + 1);
        length += NLA_ALIGN(attribute->nla_len);
    }
    header->nlmsg_len = (unsigned)length;
    struct sockaddr_nl kernel = {.nl_family = AF_NETLINK};
    struct iovec vector = {.iov_base = buffer, .iov_len = length};
    struct msghdr message = {.msg_name = &kernel, .msg_namelen = sizeof(kernel), .msg_iov = &vector,
        .msg_iovlen = 1};
    return (int)sendmsg(fd, &message, 0);
}

static int option(const int fd, const int level, const int name)
{
    int value = -1;
    socklen_t length = sizeof(value);
    return getsockopt(fd, level, name, &value, &length) == 0 ? value : -1;
}

int main(void)
{
    const int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
    CHECK("socket", fd >= 0);
    CHECK("SO_DOMAIN", option(fd, SOL_SOCKET, SO_DOMAIN) == AF_NETLINK);
    CHECK("SO_TYPE", option(fd, SOL_SOCKET, SO_TYPE) == SOCK_RAW);
    CHECK("SO_PROTOCOL", option(fd, SOL_SOCKET, SO_PROTOCOL) == NETLINK_GENERIC);
    CHECK("FD_CLOEXEC", (fcntl(fd, F_GETFD) & FD_CLOEXEC) != 0);

    struct sockaddr_nl self;
    socklen_t self_length = sizeof(self);
    CHECK("getsockname", getsockname(fd, (struct sockaddr *)&self, &self_length) == 0 &&
        self_length == sizeof(self) && self.nl_family == AF_NETLINK && self.nl_pid != 0);
    const int other = socket(AF_NETLINK, SOCK_RAW, NETLINK_GENERIC);
    struct sockaddr_nl other_self = {.nl_family = AF_NETLINK, .nl_pid = 0x12345};
    CHECK("bind", bind(other, (struct sockaddr *)&other_self, sizeof(other_self)) == 0);
    memset(&other_self, 0, sizeof(other_self));
    self_length = sizeof(other_self);
    CHECK("getsockname after bind", getsockname(other, (struct sockaddr *)&other_self, &self_length) == 0 &&
        other_self.nl_pid == 0x12345);
    CHECK("close", close(other) == 0);

    const int one = 1;
    CHECK("setsockopt SOL_NETLINK", setsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one)) == 0 &&
        option(fd, SOL_NETLINK, NETLINK_EXT_ACK) == 1);
    const int size = 32768;
    CHECK("setsockopt SO_RCVBUF", setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size)) == 0);
    struct sockaddr_nl kernel = {.nl_family = AF_NETLINK};
    CHECK("connect", connect(fd, (struct sockaddr *)&kernel, sizeof(kernel)) == 0);

    unsigned char buffer[16384];
    errno = 0;
    CHECK("MSG_DONTWAIT with nothing", recv(fd, buffer, sizeof(buffer), MSG_DONTWAIT) == -1 && errno == EAGAIN);
    struct pollfd wait = {.fd = fd, .events = POLLIN};
    CHECK("poll with nothing", poll(&wait, 1, 0) == 0);

    const int sent = request(fd, GENL_ID_CTRL, NLM_F_ACK, 77, CTRL_CMD_GETFAMILY, "IPVS");
    CHECK("sendmsg", sent == NLMSG_HDRLEN + GENL_HDRLEN + 12);
    CHECK("poll for the answer", poll(&wait, 1, 5000) == 1 && (wait.revents & POLLIN));

    struct sockaddr_nl from;
    memset(&from, 0xFF, sizeof(from));
    struct iovec small = {.iov_base = buffer, .iov_len = 4};
    struct msghdr peek = {.msg_name = &from, .msg_namelen = sizeof(from), .msg_iov = &small, .msg_iovlen = 1};
    const ssize_t full = recvmsg(fd, &peek, MSG_PEEK | MSG_TRUNC);
    CHECK("MSG_PEEK|MSG_TRUNC gives the whole length", full > 4 && (peek.msg_flags & MSG_TRUNC));
    CHECK("msg_name is the kernel", peek.msg_namelen == sizeof(from) && from.nl_family == AF_NETLINK &&
        from.nl_pid == 0 && from.nl_groups == 0);
    wait.revents = 0;
    CHECK("poll sees the peeked datagram", poll(&wait, 1, 0) == 1 && (wait.revents & POLLIN));
    CHECK("recv takes it whole", recv(fd, buffer, sizeof(buffer), 0) == full);
    const struct nlmsghdr *reply = (const struct nlmsghdr *)buffer;
    CHECK("the family answer", reply->nlmsg_type == GENL_ID_CTRL && reply->nlmsg_seq == 77 &&
        reply->nlmsg_len == (unsigned)full);
    CHECK("recvfrom the acknowledgement", recvfrom(fd, buffer, sizeof(buffer), 0, NULL, NULL) ==
        (ssize_t)(NLMSG_HDRLEN + sizeof(struct nlmsgerr)) && reply->nlmsg_type == NLMSG_ERROR &&
        ((const struct nlmsgerr *)NLMSG_DATA(reply))->error == 0);

    CHECK("write a request", request(fd, 0x20, 0, 78, 15, NULL) > 0);
    struct iovec eight = {.iov_base = buffer, .iov_len = 8};
    struct msghdr cut = {.msg_iov = &eight, .msg_iovlen = 1};
    CHECK("a short buffer truncates", recvmsg(fd, &cut, 0) == 8 && (cut.msg_flags & MSG_TRUNC));
    errno = 0;
    CHECK("the rest is gone", recv(fd, buffer, sizeof(buffer), MSG_DONTWAIT) == -1 && errno == EAGAIN);

    const int route = socket(AF_NETLINK, SOCK_RAW, NETLINK_ROUTE);
    CHECK("a routing socket is the kernel's", route >= 0 && option(route, SOL_SOCKET, SO_PROTOCOL) == NETLINK_ROUTE);
    CHECK("close it", close(route) == 0);

    const int quiet = socket(AF_NETLINK, SOCK_DGRAM | SOCK_NONBLOCK, NETLINK_GENERIC);
    errno = 0;
    CHECK("SOCK_NONBLOCK", quiet >= 0 && recv(quiet, buffer, sizeof(buffer), 0) == -1 && errno == EAGAIN);
    CHECK("close the non-blocking one", close(quiet) == 0);

    FILE *connections = fopen("/proc/net/ip_vs_conn", "r");
    CHECK("fopen /proc/net/ip_vs_conn", connections != NULL);
    char line[256];
    CHECK("its header", fgets(line, sizeof(line), connections) != NULL && strncmp(line, "Pro FromIP", 10) == 0);
    CHECK("its entry", fgets(line, sizeof(line), connections) != NULL && strncmp(line, "TCP 0A000102", 12) == 0);
    CHECK("its end", fgets(line, sizeof(line), connections) == NULL);
    fclose(connections);
    const int raw = open("/proc/net/ip_vs_conn", O_RDONLY);
    CHECK("open /proc/net/ip_vs_conn", raw >= 0 && read(raw, line, 3) == 3 && memcmp(line, "Pro", 3) == 0);
    close(raw);
    errno = 0;
    CHECK("not for writing", fopen("/proc/net/ip_vs_conn", "w") == NULL && errno == EACCES);
    errno = 0;
    CHECK("an unknown ip_vs file", fopen("/proc/net/ip_vs_nothing", "r") == NULL && errno == ENOENT);

    CHECK("close the socket", close(fd) == 0);
    printf("all passed\n");
    return 0;
}
