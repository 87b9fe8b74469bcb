package io.jvs.nativebindings.netlink;

import java.lang.foreign.MemorySegment;
import java.util.function.Consumer;

import io.jvs.nativebindings.Errno;
import io.jvs.nativebindings.NativeCallException;
import io.jvs.nativebindings.Sockets;
import io.jvs.nativebindings.Syscalls;

/**
 * The kernel's notifications of changes to links, IPv4 and IPv6 addresses, IPv4 and IPv6 routes and neighbours
 * (the rtnetlink multicast groups RTNLGRP_LINK, _IPV4_IFADDR, _IPV6_IFADDR, _IPV4_ROUTE, _IPV6_ROUTE and
 * _NEIGH), on a non-blocking socket of their own with a large receive queue. {@link #poll} drains what is queued
 * without ever blocking, for a duty cycle; {@link #fd} is there for a poll(2) that waits.
 * <p>
 * When the queue overflows the kernel drops notifications and says so once (ENOBUFS): {@link #poll} then
 * discards what is still queued and delivers {@link NetlinkEvent.Resync}, after which the caller dumps the tables
 * again with {@link RouteNetlink}.
 * <p>
 * Not thread-safe: one owner thread with its own {@link Syscalls}.
 */
public final class NetlinkSubscription implements AutoCloseable
{
    /**
     * The receive queue asked for: 4 MiB, which the kernel doubles for its bookkeeping. Each notification is a
     * socket buffer of its own of about a kilobyte or more of queue (its truesize), so this holds a few thousand.
     */
    public static final int RECEIVE_BUFFER_BYTES = 4 << 20;
    /** The groups followed. */
    static final int[] GROUPS = {
        Rtnetlink.RTNLGRP_LINK, Rtnetlink.RTNLGRP_IPV4_IFADDR, Rtnetlink.RTNLGRP_IPV6_IFADDR,
        Rtnetlink.RTNLGRP_IPV4_ROUTE, Rtnetlink.RTNLGRP_IPV6_ROUTE, Rtnetlink.RTNLGRP_NEIGH};
    /** At most this many datagrams are thrown away after an overflow, so a storm cannot hold the caller. */
    private static final int DISCARD_LIMIT = 1 << 16;
    private static final String WHAT = "rtnetlink notifications";

    private final NetlinkSocket socket;
    private final MemorySegment buffer;
    private final int receiveBufferBytes;

    private NetlinkSubscription(final NetlinkSocket socket, final int receiveBufferBytes)
    {
        this.socket = socket;
        this.buffer = socket.receiveBuffer();
        this.receiveBufferBytes = receiveBufferBytes;
    }

    /**
     * @param syscalls     the polling thread's system calls.
     * @param receiveBytes the receive queue to ask for: with SO_RCVBUFFORCE (CAP_NET_ADMIN), else SO_RCVBUF,
     *                     which net.core.rmem_max caps.
     */
    static NetlinkSubscription open(final Syscalls syscalls, final int receiveBytes)
    {
        final NetlinkSocket socket = NetlinkSocket.open(syscalls, true, WHAT);
        try
        {
            if (socket.setOption(Sockets.SOL_SOCKET, Rtnetlink.SO_RCVBUFFORCE, receiveBytes) < 0)
            {
                socket.setOptionOrThrow(Sockets.SOL_SOCKET, Sockets.SO_RCVBUF, receiveBytes, "SO_RCVBUF", WHAT);
            }
            final int granted = socket.getOption(Sockets.SOL_SOCKET, Sockets.SO_RCVBUF, "SO_RCVBUF", WHAT);
            for (final int group : GROUPS)
            {
                socket.setOptionOrThrow(Rtnetlink.SOL_NETLINK, Rtnetlink.NETLINK_ADD_MEMBERSHIP, group,
                    "NETLINK_ADD_MEMBERSHIP " + group, WHAT);
            }
            return new NetlinkSubscription(socket, granted);
        }
        catch (final RuntimeException ex)
        {
            socket.close();
            throw ex;
        }
    }

    /**
     * @return the socket, for poll(2) (POLLIN when notifications are queued).
     */
    public int fd()
    {
        return socket.fd();
    }

    /**
     * @return the receive queue the kernel granted (SO_RCVBUF as read back, twice what was asked).
     */
    public int receiveBufferBytes()
    {
        return receiveBufferBytes;
    }

    /**
     * Delivers the queued notifications, in the kernel's order, without blocking (MSG_DONTWAIT): every datagram
     * queued when it is called and any that arrive while it runs. Messages jvs does not follow (other types, other
     * families such as AF_BRIDGE) and datagrams not from the kernel are skipped.
     *
     * @param sink receives the events; what it throws ends the call, and the rest of that datagram is lost.
     * @return how many events it delivered, {@link NetlinkEvent.Resync} included; 0 when none was queued.
     * @throws NetlinkFormatException when a notification does not hold together; the rest of its datagram is
     *                                lost, so dump again.
     * @throws NativeCallException    when receiving fails other than for want of data or an overflow.
     */
    public int poll(final Consumer<? super NetlinkEvent> sink)
    {
        int events = 0;
        while (true)
        {
            final long received = socket.receive();
            if (received == -Errno.EAGAIN)
            {
                return events;
            }
            if (received == -Errno.EINTR)
            {
                continue;
            }
            if (received == -Errno.ENOBUFS)
            {
                discardQueued();
                sink.accept(new NetlinkEvent.Resync("the notification queue overflowed (ENOBUFS): notifications " +
                    "were lost"));
                events++;
                continue;
            }
            if (received < 0)
            {
                throw new NativeCallException("recvfrom AF_NETLINK", (int)-received, WHAT);
            }
            if (received > NetlinkSocket.RECEIVE_BUFFER)
            {
                discardQueued();
                sink.accept(new NetlinkEvent.Resync("a notification of " + received + " bytes did not fit the " +
                    NetlinkSocket.RECEIVE_BUFFER + "-byte buffer"));
                events++;
                continue;
            }
            if (socket.senderPort() != 0)
            {
                continue;
            }
            events += deliver((int)received, sink);
        }
    }

    @Override
    public void close()
    {
        socket.close();
    }

    private int deliver(final int length, final Consumer<? super NetlinkEvent> sink)
    {
        int events = 0;
        long position = 0;
        while (position < length)
        {
            final int messageLength = RtnetlinkParser.messageLength(buffer, position, length);
            final NetlinkEvent event = RtnetlinkParser.event(buffer, position, messageLength);
            if (event != null)
            {
                sink.accept(event);
                events++;
            }
            position += Rtnetlink.align(messageLength);
        }
        return events;
    }

    /**
     * Throws away what is queued after an overflow: those notifications are older than the dump the caller is
     * about to make, and applying them after it could undo what the lost ones changed.
     */
    private void discardQueued()
    {
        for (int i = 0; i < DISCARD_LIMIT; i++)
        {
            final long received = socket.receive();
            if (received == -Errno.EAGAIN)
            {
                return;
            }
            if (received < 0 && received != -Errno.EINTR && received != -Errno.ENOBUFS)
            {
                throw new NativeCallException("recvfrom AF_NETLINK", (int)-received, WHAT);
            }
        }
    }
}
