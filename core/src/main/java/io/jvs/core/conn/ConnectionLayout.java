package io.jvs.core.conn;

/**
 * Where a connection entry's fields sit. An IPv4 entry is 32 bytes (two per cache line), an IPv6 entry
 * 64 bytes; the fields after the addresses have the same layout in both, from {@code META}.
 * <pre>
 *   IPv4 (32 bytes)                              IPv6 (64 bytes)
 *    0 client address (4)                         0 client address (16)
 *    4 virtual address (4)                       16 virtual address (16)
 *    8 META: client port (2)                     32 META: client port (2)
 *   10       virtual port (2)                    34       virtual port (2)
 *   12       protocol (1)                        36       protocol (1)
 *   13       state (1)                           37       state (1)
 *   14       flags (1)                           38       flags (1): used, inactive, no output, method,
 *                                                        assured, packet's port
 *   16       server slot (4)                     40       server slot (4)
 *   20       expiry tick (4)                     44       expiry tick (4)
 *   24       template way, -1 for none (4)       48       template way (4)
 *   28       home slot (4)                       52       home slot (4)
 * </pre>
 * The real server's address and port are not stored: the server slot names them. The home slot is kept
 * so that deletion can shift entries back without rehashing them.
 */
final class ConnectionLayout
{
    static final int V4_ENTRY_LENGTH = 32;
    static final int V6_ENTRY_LENGTH = 64;
    static final int V4_META = 8;
    static final int V6_META = 32;

    static final int CLIENT_PORT = 0;
    static final int VIRTUAL_PORT = 2;
    static final int PROTOCOL = 4;
    static final int STATE = 5;
    static final int FLAGS = 6;
    static final int SERVER = 8;
    static final int EXPIRES = 12;
    static final int TEMPLATE = 16;
    static final int HOME = 20;

    /** The slot holds an entry. */
    static final int FLAG_USED = 0x01;
    /** Counted among the server's inactive connections (the kernel's IP_VS_CONN_F_INACTIVE). */
    static final int FLAG_INACTIVE = 0x02;
    /** No reply has passed through jvs (DR/TUN always, NAT before the first reply): INPUT_ONLY states. */
    static final int FLAG_NO_OUTPUT = 0x04;
    /**
     * The forwarding method the connection was made with (ForwardMethod's ordinal), kept for its life: the kernel
     * copies the destination's method into the connection's flags when it binds it (ip_vs_bind_dest, then
     * ip_vs_bind_xmit), so an edit of the server's method (ipvsadm -e, a reload) changes only new connections.
     */
    static final int METHOD_SHIFT = 3;
    static final int METHOD_MASK = 0x18;
    /** The connection has marked its persistence template assured (ip_vs_control_assure_ct), so it need not again. */
    static final int FLAG_ASSURED = 0x20;
    /**
     * The connection goes to the port its packets came to, whatever its server's port: it was made by a persistent
     * service of port 0 or of a firewall mark (ip_vs_sched_persist keeps the packet's port unless it is the
     * service's), and keeps that for its life as the kernel keeps {@code cp->dport}, also when its server belongs to
     * another service (an FTP control connection's template) or an edit of the service changes its persistence.
     */
    static final int FLAG_PACKETS_PORT = 0x40;
    /**
     * The connection's frames are forwarded outside the pipeline (pipeline.ConnectionOffload), until it is
     * withdrawn: the pipeline offers it once and withdraws it before the entry goes.
     */
    static final int FLAG_OFFLOADED = 0x80;

    private ConnectionLayout()
    {
    }
}
