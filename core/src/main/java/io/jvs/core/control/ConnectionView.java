package io.jvs.core.control;

import io.jvs.core.net.IpAddress;

/**
 * One connection entry as {@code /proc/net/ip_vs_conn} gives it and {@code ipvsadm -L -c} prints it.
 *
 * @param protocol        the protocol's name as the kernel's ip_vs_proto_name gives it: "TCP", "UDP", "SCTP",
 *                        or another name for a persistence template.
 * @param client          the client's address.
 * @param clientPort      its port.
 * @param virtualAddress  the virtual address (of the client's family).
 * @param virtualPort     the virtual port.
 * @param destination     the real server's address (may be of the other family, for a tunnel).
 * @param destinationPort its port.
 * @param state           the state's name, e.g. "ESTABLISHED", or "UDP" for every UDP entry.
 * @param expiresMs       time until the entry expires, in milliseconds.
 */
public record ConnectionView(
    String protocol,
    IpAddress client,
    int clientPort,
    IpAddress virtualAddress,
    int virtualPort,
    IpAddress destination,
    int destinationPort,
    String state,
    long expiresMs)
{
}
