/*
 * A long-lived IPVS client, as keepalived is: one generic netlink socket opened at the start and kept, through which
 * the commands read from standard input, one a line, are sent, so that a test can stop and start the daemon between
 * two of them. Each command's answer is one or more lines, then "end":
 *   family             resolve "IPVS" (CTRL_CMD_GETFAMILY): "family ID"
 *   add ADDR PORT      IPVS_CMD_NEW_SERVICE of TCP ADDR:PORT, rr (acknowledged): "ok"
 *   dump               IPVS_CMD_GET_SERVICE dump, read to its end: "service ADDR:PORT" each, then "done"
 *   send-dump          only send the dump request
 *   recv               receive one datagram: "message TYPE" for each message in it, "done" for NLMSG_DONE
 *   flags              the descriptor's flags: "fd N cloexec C nonblock B"
 * A refusal is "error ERRNO STRERROR"; a call that fails, "failed CALL ERRNO STRERROR".
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/genetlink.h>
#include <linux/ip_vs.h>
#include <linux/netlink.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* Walking attributes (the kernel's nla_ok and nla_next, which user space headers lack). */
#define ATTRIBUTE_OK(at, left) ((left) >= (int)NLA_HDRLEN && (at)->nla_len >= NLA_HDRLEN && (at)->nla_len <= (left))
#define ATTRIBUTE_NEXT(at, left) \
    ((left) -= NLA_ALIGN((at)->nla_len), (struct nlattr *)((unsigned char *)(at) + NLA_ALIGN((at)->nla_len)))

static int fd;
static unsigned sequence = 100;
static int family = -1;
static unsigned char buffer[65536];

struct message
{
    unsigned char bytes[512];
    size_t length;
};

static struct nlattr *attribute(struct message *message, const int type, const void *value, const size_t length)
{
    struct nlattr *header = (struct nlattr *)(message->bytes + message->length);
    header->nla_type = (unsigned short)type;
    header->nla_len = (unsigned short)(NLA_HDRLEN + length);
    if (value != NULL)
    {
        memcpy(message->bytes + message->length + NLA_HDRLEN, value, length);
    }
    message->length += NLA_ALIGN(header->nla_len);
    return header;
}

static void start(struct message *message, const int type, const int flags, const int command)
{
    memset(message, 0, sizeof(*message));
    struct nlmsghdr *header = (struct nlmsghdr *)message->bytes;
    header->nlmsg_type = (unsigned short)type;
    header->nlmsg_flags = (unsigned short)(NLM_F_REQUEST | flags);
    header->nlmsg_seq = ++sequence;
    struct genlmsghdr *genl = (struct genlmsghdr *)(message->bytes + NLMSG_HDRLEN);
    genl->cmd = (unsigned char)command;
    genl->version = 1;
    message->length = NLMSG_HDRLEN + GENL_HDRLEN;
}

static int send_message(struct message *message)
{
    ((struct nlmsghdr *)message->bytes)->nlmsg_len = (unsigned)message->length;
    struct sockaddr_nl kernel = {.nl_family = AF_NETLINK};
    if (sendto(fd, message->bytes, message->length, 0, (struct sockaddr *)&kernel, sizeof(kernel)) < 0)
    {
        printf("failed send %d %s\n", errno, strerror(errno));
        return -1;
    }
    return 0;
}

/*
 * Receives one datagram and prints what it holds. @return 1 when it ended the answer (an error, an
 * acknowledgement, NLMSG_DONE), 0 when more is due, -1 when the receive failed.
 */
static int receive_one(const int raw)
{
    ssize_t got = recv(fd, buffer, sizeof(buffer), 0);
    if (got < 0)
    {
        printf("failed recv %d %s\n", errno, strerror(errno));
        return -1;
    }
    int ended = 0;
    for (struct nlmsghdr *header = (struct nlmsghdr *)buffer; NLMSG_OK(header, got) && !ended;
         header = NLMSG_NEXT(header, got))
    {
        if (header->nlmsg_seq != sequence)
        {
            printf("sequence %u, not %u\n", header->nlmsg_seq, sequence);
        }
        if (header->nlmsg_type == NLMSG_ERROR)
        {
            const int error = -((struct nlmsgerr *)NLMSG_DATA(header))->error;
            if (error == 0)
            {
                printf("ok\n");
            }
            else
            {
                printf("error %d %s\n", error, strerror(error));
            }
            ended = 1;
        }
        else if (header->nlmsg_type == NLMSG_DONE)
        {
            printf("done\n");
            ended = 1;
        }
        else if (header->nlmsg_type == GENL_ID_CTRL)
        {
            struct nlattr *at = (struct nlattr *)((unsigned char *)NLMSG_DATA(header) + GENL_HDRLEN);
            int left = (int)(header->nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN);
            for (; ATTRIBUTE_OK(at, left); at = ATTRIBUTE_NEXT(at, left))
            {
                if (at->nla_type == CTRL_ATTR_FAMILY_ID)
                {
                    family = *(unsigned short *)((unsigned char *)at + NLA_HDRLEN);
                    printf("family %d\n", family);
                }
            }
        }
        else if (header->nlmsg_type == family && raw)
        {
            printf("message %d\n", header->nlmsg_type);
        }
        else if (header->nlmsg_type == family)
        {
            /* A service: its nested attributes' address and port. */
            struct nlattr *top = (struct nlattr *)((unsigned char *)NLMSG_DATA(header) + GENL_HDRLEN);
            struct nlattr *at = (struct nlattr *)((unsigned char *)top + NLA_HDRLEN);
            int left = top->nla_len - NLA_HDRLEN;
            char address[INET_ADDRSTRLEN] = "?";
            unsigned port = 0;
            for (; ATTRIBUTE_OK(at, left); at = ATTRIBUTE_NEXT(at, left))
            {
                const unsigned char *value = (const unsigned char *)at + NLA_HDRLEN;
                if (at->nla_type == IPVS_SVC_ATTR_ADDR)
                {
                    inet_ntop(AF_INET, value, address, sizeof(address));
                }
                else if (at->nla_type == IPVS_SVC_ATTR_PORT)
                {
                    port = (unsigned)value[0] << 8 | value[1];
                }
            }
            printf("service %s:%u\n", address, port);
        }
    }
    return ended;
}

static void answer(void)
{
    int ended;
    do
    {
        ended = receive_one(0);
    }
    while (ended == 0);
}

static void get_family(void)
{
    struct message message;
    start(&message, GENL_ID_CTRL, NLM_F_ACK, CTRL_CMD_GETFAMILY);
    attribute(&message, CTRL_ATTR_FAMILY_NAME, IPVS_GENL_NAME, strlen(IPVS_GENL_NAME) + 1);
    if (send_message(&message) == 0)
    {
        answer();
    }
}

static void add_service(const char *address, const unsigned port)
{
    struct message message;
    start(&message, family, NLM_F_ACK, IPVS_CMD_NEW_SERVICE);
    struct nlattr *service = attribute(&message, IPVS_CMD_ATTR_SERVICE, NULL, 0);
    const size_t nested = message.length - NLA_HDRLEN;
    const unsigned short af = AF_INET;
    const unsigned short protocol = IPPROTO_TCP;
    unsigned char address_bytes[16] = {0};
    inet_pton(AF_INET, address, address_bytes);
    const unsigned short port_bytes = htons((unsigned short)port);
    const struct ip_vs_flags flags = {.flags = 0, .mask = ~0u};
    const unsigned timeout = 0;
    const unsigned netmask = 0xFFFFFFFFu;
    attribute(&message, IPVS_SVC_ATTR_AF, &af, sizeof(af));
    attribute(&message, IPVS_SVC_ATTR_PROTOCOL, &protocol, sizeof(protocol));
    attribute(&message, IPVS_SVC_ATTR_ADDR, address_bytes, sizeof(address_bytes));
    attribute(&message, IPVS_SVC_ATTR_PORT, &port_bytes, sizeof(port_bytes));
    attribute(&message, IPVS_SVC_ATTR_SCHED_NAME, "rr", 3);
    attribute(&message, IPVS_SVC_ATTR_FLAGS, &flags, sizeof(flags));
    attribute(&message, IPVS_SVC_ATTR_TIMEOUT, &timeout, sizeof(timeout));
    attribute(&message, IPVS_SVC_ATTR_NETMASK, &netmask, sizeof(netmask));
    service->nla_len = (unsigned short)(message.length - nested);
    if (send_message(&message) == 0)
    {
        answer();
    }
}

static int send_dump(void)
{
    struct message message;
    start(&message, family, NLM_F_DUMP | NLM_F_ACK, IPVS_CMD_GET_SERVICE);
    return send_message(&message);
}

int main(void)
{
    fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
    if (fd < 0)
    {
        printf("failed socket %d %s\nend\n", errno, strerror(errno));
        return 1;
    }
    struct sockaddr_nl self = {.nl_family = AF_NETLINK};
    bind(fd, (struct sockaddr *)&self, sizeof(self));
    setvbuf(stdout, NULL, _IOLBF, 0);
    printf("open\nend\n");
    char line[256];
    while (fgets(line, sizeof(line), stdin) != NULL)
    {
        char address[64];
        unsigned port;
        if (strcmp(line, "family\n") == 0)
        {
            get_family();
        }
        else if (sscanf(line, "add %63s %u", address, &port) == 2)
        {
            add_service(address, port);
        }
        else if (strcmp(line, "dump\n") == 0)
        {
            if (send_dump() == 0)
            {
                answer();
            }
        }
        else if (strcmp(line, "send-dump\n") == 0)
        {
            send_dump();
        }
        else if (strcmp(line, "recv\n") == 0)
        {
            receive_one(1);
        }
        else if (strcmp(line, "flags\n") == 0)
        {
            printf("fd %d cloexec %d nonblock %d\n", fd, (fcntl(fd, F_GETFD) & FD_CLOEXEC) != 0,
                (fcntl(fd, F_GETFL) & O_NONBLOCK) != 0);
        }
        else
        {
            printf("unknown command %s", line);
        }
        printf("end\n");
    }
    close(fd);
    return 0;
}
