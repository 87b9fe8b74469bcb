package io.jvs.core.control;

import io.jvs.core.net.IpAddress;
import io.jvs.core.service.ServiceKey;

/**
 * One connection entry as {@code /proc/net/ip_vs_conn} gives it and {@code ipvsadm -L -c} prints it: a connection,
 * or a persistence template ({@link #template}), which IPVS keeps as a connection entry of its own.
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
    /** The port whose persistent services' templates carry no ports (ip_vs_sched_persist's FTPPORT). */
    private static final int FTP_PORT = 21;

    /**
     * A persistence template as ip_vs_sched_persist makes it and ip_vs_conn_seq_show lists it: {@code <protocol,
     * client network, 0, virtual address, virtual port, server, server port>} for a service of one port; the ports
     * 0 for a port-0 service and for FTP's (port 21); and {@code <IP, client network, 0, mark, 0, server, 0>} for
     * a firewall-mark service, the mark taking the virtual address's first 32 bits (nf_inet_addr's {@code .ip},
     * so 0.0.0.7 for mark 7, 0:7:: for an IPv6 service). Its state is "NONE" (ip_vs_ctpl_state_name_table's first).
     * @see #template(ServiceKey, IpAddress, IpAddress, int, long, boolean)
     *
     * @param key         the template's service.
     * @param network     the client's address masked by the service's netmask (-M), of the service's family.
     * @param destination the server the template gives the network to.
     * @param port        that server's port.
     * @param expiresMs   time until the template expires.
     * @return the entry.
     */
    public static ConnectionView template(
        final ServiceKey key, final IpAddress network, final IpAddress destination, final int port,
        final long expiresMs)
    {
        return template(key, network, destination, port, expiresMs, false);
    }

    /**
     * As {@link #template(ServiceKey, IpAddress, IpAddress, int, long)}, with the state "ASSURED" once a connection
     * it placed was established or answered (IP_VS_CTPL_S_ASSURED, set by ip_vs_control_assure_ct), else "NONE".
     */
    public static ConnectionView template(
        final ServiceKey key, final IpAddress network, final IpAddress destination, final int port,
        final long expiresMs, final boolean assured)
    {
        final String state = assured ? "ASSURED" : "NONE";
        if (key.isFirewallMark())
        {
            final IpAddress mark = key.v6() ? IpAddress.ofV6((key.firewallMark() & 0xFFFF_FFFFL) << 32, 0) :
                IpAddress.ofV4(key.firewallMark());
            return new ConnectionView("IP", network, 0, mark, 0, destination, 0, state, expiresMs);
        }
        final boolean ports = key.port() != 0 && key.port() != FTP_PORT;
        return new ConnectionView(key.protocol().name(), network, 0, key.address(), ports ? key.port() : 0,
            destination, ports ? port : 0, state, expiresMs);
    }
}
