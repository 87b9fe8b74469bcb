package io.jvs.forwarder.control.netlink;

/**
 * The connection timeouts in seconds ({@code ipvsadm --set tcp tcpfin udp}, {@code --timeout}).
 */
public record IpvsTimeouts(int tcp, int tcpFin, int udp)
{
}
