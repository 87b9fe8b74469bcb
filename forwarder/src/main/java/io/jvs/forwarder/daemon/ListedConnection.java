package io.jvs.forwarder.daemon;

import io.jvs.core.net.IpAddress;

/**
 * One connection entry as {@code ipvsadm -c} lists it: what the worker's table holds, with the real server named
 * by the snapshot current when it was listed.
 *
 * @param protocol    the IP protocol number (6 TCP, 17 UDP, 132 SCTP).
 * @param state       the connection's state ({@link io.jvs.core.conn.TcpStates}; UDP entries keep NONE).
 * @param expiresMs   milliseconds until it expires, unless traffic re-arms it.
 * @param client      the client's address.
 * @param clientPort  the client's port.
 * @param virtual     the virtual address the client reached.
 * @param virtualPort the virtual port.
 * @param server      the real server's address.
 * @param serverPort  the real server's port.
 */
public record ListedConnection(int protocol, int state, long expiresMs, IpAddress client, int clientPort,
    IpAddress virtual, int virtualPort, IpAddress server, int serverPort)
{
}
