package io.jvs.nativebindings.netlink;

import java.lang.foreign.MemorySegment;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;

import io.jvs.nativebindings.Errno;
import io.jvs.nativebindings.NativeCallException;
import io.jvs.nativebindings.Sockets;
import io.jvs.nativebindings.Syscalls;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_SHORT_UNALIGNED;

/**
 * Requests to the kernel's routing subsystem over a NETLINK_ROUTE socket: dumps of its links, addresses, routes
 * and neighbours, the route it would choose for one destination, and neighbour resolution. Each request is
 * synchronous: it carries a new sequence number and the answers with that number are read (a dump until
 * NLMSG_DONE), so the leftovers of an earlier request that failed half-way are recognised and skipped. A
 * failure the kernel reports (NLMSG_ERROR) becomes a {@link NativeCallException} naming the request, the errno
 * and the kernel's own explanation (the socket asks for extended acknowledgements).
 * <p>
 * To follow the tables, {@link #subscribe} first and dump second: a change made between the two is then both
 * in the dump and queued as an event, and applying it twice is harmless, while the other order could miss it.
 * <p>
 * Not thread-safe: one owner thread with its own {@link Syscalls}, in the network namespace the socket was
 * opened in (which it keeps whatever thread later uses it).
 */
public final class RouteNetlink implements AutoCloseable
{
    /** How long a request waits for the kernel's answer before it fails. */
    public static final int TIMEOUT_MS = 5_000;
    /** How often a dump that a concurrent change interrupted (NLM_F_DUMP_INTR) is tried again. */
    static final int DUMP_ATTEMPTS = 5;
    private static final String WHAT = "rtnetlink requests";
    /** Errnos of a route lookup that mean "no route", which the shared Errno table does not name. */
    private static final int ENETUNREACH = 101;
    private static final int EHOSTUNREACH = 113;

    private final NetlinkSocket socket;
    private final RequestWriter request;
    private final MemorySegment replies;
    private int sequence;
    private long replyOffset;
    private int replyLength;

    private RouteNetlink(final NetlinkSocket socket)
    {
        this.socket = socket;
        this.request = new RequestWriter(socket.requestBuffer());
        this.replies = socket.receiveBuffer();
        this.sequence = (int)(System.nanoTime() & 0x7FFF_FFFF);
    }

    /**
     * Opens the request socket, in the calling thread's network namespace.
     *
     * @param syscalls the owning thread's system calls.
     * @throws NativeCallException when the socket cannot be made.
     */
    public static RouteNetlink open(final Syscalls syscalls)
    {
        final NetlinkSocket socket = NetlinkSocket.open(syscalls, false, WHAT);
        try
        {
            // The kernel's explanations in errors, without the echo of our request; strict checking of requests,
            // under which the kernel honours the header's fields (the family) as dump filters.
            socket.setOptionOrThrow(Rtnetlink.SOL_NETLINK, Rtnetlink.NETLINK_EXT_ACK, 1, "NETLINK_EXT_ACK", WHAT);
            socket.setOptionOrThrow(Rtnetlink.SOL_NETLINK, Rtnetlink.NETLINK_CAP_ACK, 1, "NETLINK_CAP_ACK", WHAT);
            socket.setOptionOrThrow(Rtnetlink.SOL_NETLINK, Rtnetlink.NETLINK_GET_STRICT_CHK, 1,
                "NETLINK_GET_STRICT_CHK", WHAT);
            return new RouteNetlink(socket);
        }
        catch (final RuntimeException ex)
        {
            socket.close();
            throw ex;
        }
    }

    /**
     * Subscribes to the kernel's notifications of links, IPv4 and IPv6 addresses and routes, and neighbours, on a
     * socket of its own (in the calling thread's network namespace). Subscribe before dumping (see the class).
     *
     * @param syscalls the system calls of the thread that will poll it.
     */
    public static NetlinkSubscription subscribe(final Syscalls syscalls)
    {
        return NetlinkSubscription.open(syscalls, NetlinkSubscription.RECEIVE_BUFFER_BYTES);
    }

    /**
     * @return every interface of the namespace (RTM_GETLINK dump).
     */
    public List<Link> links()
    {
        return dump(Rtnetlink.RTM_GETLINK, IfInfoMsg.SIZE, 0, Rtnetlink.RTM_NEWLINK, RtnetlinkParser::link,
            "dump of links");
    }

    /**
     * @return every IPv4 and IPv6 address of every interface (RTM_GETADDR dump).
     */
    public List<Address> addresses()
    {
        return dump(Rtnetlink.RTM_GETADDR, IfAddrMsg.SIZE, 0, Rtnetlink.RTM_NEWADDR, RtnetlinkParser::address,
            "dump of addresses");
    }

    /**
     * @param family AF_INET or AF_INET6.
     * @return the routes of every table of the family (main, local and policy routing's), as {@code ip route show
     * table all} lists them.
     */
    public List<Route> routes(final int family)
    {
        checkFamily(family);
        return dump(Rtnetlink.RTM_GETROUTE, RtMsg.SIZE, family, Rtnetlink.RTM_NEWROUTE, RtnetlinkParser::route,
            "dump of routes of family " + family);
    }

    /**
     * @param family AF_INET (the ARP table) or AF_INET6 (the neighbour discovery table).
     * @return the family's neighbour entries, in every state.
     */
    public List<Neighbour> neighbours(final int family)
    {
        checkFamily(family);
        return dump(Rtnetlink.RTM_GETNEIGH, NdMsg.SIZE, family, Rtnetlink.RTM_NEWNEIGH, RtnetlinkParser::neighbour,
            "dump of neighbours of family " + family);
    }

    /**
     * The route the kernel would choose to send to {@code destination} from this host, as {@code ip route get}
     * asks it: rules of policy routing, route priorities and multipath selection included, since the kernel
     * decides. The answer names one path: its output interface, its gateway (null when the destination is
     * on-link) and the preferred source; its table is the one the lookup matched (RTM_F_LOOKUP_TABLE).
     *
     * @return the route, or null when the kernel has none that delivers: no route (ENETUNREACH), an unreachable
     * route (EHOSTUNREACH), a prohibit route (EACCES), or a blackhole route (EINVAL without an explanation, which
     * is what this kernel answers for those, in both families).
     * @throws NativeCallException for other failures, a request the kernel refused (EINVAL with its explanation)
     *                             among them.
     */
    public Route routeTo(final InetAddress destination)
    {
        return routeTo(destination, null, 0);
    }

    /**
     * {@link #routeTo(InetAddress)} for packets with a given source and firewall mark, which policy routing rules
     * may select on ({@code ip rule add from ... table ...}, {@code fwmark}).
     *
     * @param destination where to.
     * @param source      a local address of the same family, or null. For IPv4 the kernel refuses a source that
     *                    is not local with ENETUNREACH (and so this returns null).
     * @param mark        the firewall mark, 0 for none.
     */
    public Route routeTo(final InetAddress destination, final InetAddress source, final int mark)
    {
        final int family = familyOf(destination);
        if (source != null && familyOf(source) != family)
        {
            throw new IllegalArgumentException("source " + source.getHostAddress() + " and destination " +
                destination.getHostAddress() + " are of different families");
        }
        final String what = "route lookup of " + destination.getHostAddress() +
            (source == null ? "" : " from " + source.getHostAddress()) + (mark == 0 ? "" : " mark " + mark);
        final int bits = AttributeCursor.addressLength(family) * 8;
        final int seq = nextSequence();
        final long header = request.begin(Rtnetlink.RTM_GETROUTE, Rtnetlink.NLM_F_REQUEST, seq, RtMsg.SIZE);
        final MemorySegment buffer = request.buffer();
        buffer.set(JAVA_BYTE, header + RtMsg.FAMILY_OFFSET, (byte)family);
        buffer.set(JAVA_BYTE, header + RtMsg.DST_LEN_OFFSET, (byte)bits);
        buffer.set(JAVA_BYTE, header + RtMsg.SRC_LEN_OFFSET, (byte)(source == null ? 0 : bits));
        if (family == Sockets.AF_INET)
        {
            // IPv4 reports the matched table only when asked; IPv6 reports it anyway and, under strict checking,
            // refuses the flag (inet6_rtm_valid_getroute_req accepts RTM_F_FIB_MATCH alone).
            buffer.set(JAVA_INT_UNALIGNED, header + RtMsg.FLAGS_OFFSET, Rtnetlink.RTM_F_LOOKUP_TABLE);
        }
        request.attribute(Rtnetlink.RTA_DST, destination.getAddress());
        if (source != null)
        {
            request.attribute(Rtnetlink.RTA_SRC, source.getAddress());
        }
        if (mark != 0)
        {
            request.attributeU32(Rtnetlink.RTA_MARK, mark);
        }
        socket.send(request.finish(), what);
        final int error = awaitReply(seq, what);
        if (error == -ENETUNREACH || error == -EHOSTUNREACH || error == -Errno.EACCES ||
            error == -Errno.EINVAL && RtnetlinkParser.errorText(replies, replyOffset, replyLength) == null)
        {
            // A refused request is EINVAL too, but comes with the kernel's explanation; a blackhole does not.
            return null;
        }
        expectReply(error, Rtnetlink.RTM_NEWROUTE, Rtnetlink.RTM_GETROUTE, what);
        final Route route = RtnetlinkParser.route(replies, replyOffset, replyLength);
        if (route == null)
        {
            throw new NetlinkFormatException(what + ": the kernel answered with a route of another family");
        }
        return route;
    }

    /**
     * The kernel's entry for one neighbour (RTM_GETNEIGH, as {@code ip neigh get}).
     *
     * @param index   the interface's index.
     * @param address the neighbour's address.
     * @return the entry, or null when the kernel has none.
     */
    public Neighbour neighbour(final int index, final InetAddress address)
    {
        checkIndex(index);
        final String what = "neighbour lookup of " + address.getHostAddress() + " on interface " + index;
        final int seq = nextSequence();
        neighbourRequest(Rtnetlink.RTM_GETNEIGH, Rtnetlink.NLM_F_REQUEST, seq, index, address, 0);
        socket.send(request.finish(), what);
        final int error = awaitReply(seq, what);
        if (error == -Errno.ENOENT)
        {
            return null;
        }
        expectReply(error, Rtnetlink.RTM_NEWNEIGH, Rtnetlink.RTM_GETNEIGH, what);
        return RtnetlinkParser.neighbour(replies, replyOffset, replyLength);
    }

    /**
     * Makes the kernel resolve a neighbour, or confirm one it no longer trusts, as its own forwarding would when
     * it sends there: RTM_NEWNEIGH with NTF_USE (neigh_add calls neigh_event_send). With no entry, the kernel
     * creates one (NLM_F_CREATE) and sends a solicitation: INCOMPLETE, then REACHABLE when the neighbour answers
     * or FAILED when nobody does; a FAILED entry is tried again the same way. A STALE entry moves to DELAY, and
     * from there to a unicast PROBE unless something confirms it. A REACHABLE, DELAY or PROBE entry is only marked
     * used, which makes the kernel probe it rather than let it go STALE when it expires: calling this for the next
     * hops in use keeps them fresh, since jvs's own traffic never confirms an entry to the kernel.
     * <p>
     * PERMANENT and NOARP entries are left alone: the kernel drops NUD_PERMANENT from an entry given NTF_USE
     * (__neigh_update), which would turn a static MAC into a resolution that may fail. The entry is looked up
     * first for that reason.
     *
     * @param index   the interface's index.
     * @param address the neighbour's address.
     * @throws NativeCallException when the kernel refuses (ENODEV for an unknown interface, EINVAL for an
     *                             interface that does no resolution...).
     */
    public void resolve(final int index, final InetAddress address)
    {
        final Neighbour existing = neighbour(index, address);
        if (existing != null && existing.fixed())
        {
            return;
        }
        final String what = "resolution of " + address.getHostAddress() + " on interface " + index;
        final int seq = nextSequence();
        neighbourRequest(Rtnetlink.RTM_NEWNEIGH, Rtnetlink.NLM_F_REQUEST | Rtnetlink.NLM_F_ACK | Rtnetlink.NLM_F_CREATE,
            seq, index, address, Rtnetlink.NTF_USE);
        socket.send(request.finish(), what);
        expectReply(awaitReply(seq, what), Rtnetlink.NLMSG_ERROR, Rtnetlink.RTM_NEWNEIGH, what);
    }

    @Override
    public void close()
    {
        socket.close();
    }

    private void neighbourRequest(final int type, final int flags, final int seq, final int index,
        final InetAddress address, final int neighbourFlags)
    {
        final long header = request.begin(type, flags, seq, NdMsg.SIZE);
        final MemorySegment buffer = request.buffer();
        buffer.set(JAVA_BYTE, header + NdMsg.FAMILY_OFFSET, (byte)familyOf(address));
        buffer.set(JAVA_INT_UNALIGNED, header + NdMsg.IFINDEX_OFFSET, index);
        // ndm_state stays NUD_NONE: neigh_add ignores the state under NTF_USE, and a new entry must not be
        // PERMANENT; a lookup must leave it 0 under strict checking.
        buffer.set(JAVA_BYTE, header + NdMsg.FLAGS_OFFSET, (byte)neighbourFlags);
        request.attribute(Rtnetlink.NDA_DST, address.getAddress());
    }

    private interface Decoder<T>
    {
        T decode(MemorySegment segment, long offset, int length);
    }

    private <T> List<T> dump(final int requestType, final int structSize, final int family, final int replyType,
        final Decoder<T> decoder, final String what)
    {
        for (int attempt = 1; ; attempt++)
        {
            final int seq = nextSequence();
            final long header = request.begin(requestType, Rtnetlink.NLM_F_REQUEST | Rtnetlink.NLM_F_DUMP, seq,
                structSize);
            // The family is the first byte of ifinfomsg, ifaddrmsg, rtmsg and ndmsg alike.
            request.buffer().set(JAVA_BYTE, header, (byte)family);
            if (requestType == Rtnetlink.RTM_GETLINK)
            {
                request.attributeU32(Rtnetlink.IFLA_EXT_MASK, Rtnetlink.RTEXT_FILTER_SKIP_STATS);
            }
            socket.send(request.finish(), what);
            final List<T> results = new ArrayList<>();
            if (!receiveDump(seq, replyType, decoder, results, requestType, what))
            {
                return results;
            }
            if (attempt == DUMP_ATTEMPTS)
            {
                throw new IllegalStateException(what + " was interrupted by concurrent changes " + DUMP_ATTEMPTS +
                    " times in a row (NLM_F_DUMP_INTR)");
            }
        }
    }

    /**
     * @return true when the kernel flagged the dump as interrupted (NLM_F_DUMP_INTR).
     */
    private <T> boolean receiveDump(final int seq, final int replyType, final Decoder<T> decoder,
        final List<T> results, final int requestType, final String what)
    {
        boolean interrupted = false;
        while (true)
        {
            final int length = socket.receiveFromKernel(TIMEOUT_MS, what);
            long position = 0;
            while (position < length)
            {
                final int messageLength = RtnetlinkParser.messageLength(replies, position, length);
                if (RtnetlinkParser.sequence(replies, position) == seq)
                {
                    final int type = RtnetlinkParser.type(replies, position);
                    interrupted |= (RtnetlinkParser.flags(replies, position) & Rtnetlink.NLM_F_DUMP_INTR) != 0;
                    if (type == Rtnetlink.NLMSG_DONE)
                    {
                        final int error = RtnetlinkParser.doneError(replies, position, messageLength);
                        if (error < 0)
                        {
                            throw failure(requestType, -error, null, what);
                        }
                        return interrupted;
                    }
                    if (type == Rtnetlink.NLMSG_ERROR)
                    {
                        final int error = RtnetlinkParser.error(replies, position, messageLength);
                        if (error < 0)
                        {
                            throw failure(requestType, -error,
                                RtnetlinkParser.errorText(replies, position, messageLength), what);
                        }
                    }
                    else if (type == replyType)
                    {
                        final T value = decoder.decode(replies, position, messageLength);
                        if (value != null)
                        {
                            results.add(value);
                        }
                    }
                }
                position += Rtnetlink.align(messageLength);
            }
        }
    }

    /**
     * Reads until the answer to request {@code seq}: a message, or an NLMSG_ERROR (an acknowledgement when its
     * error is 0). The message is left in the receive buffer at {@link #replyOffset}.
     *
     * @return 0, or the negative errno of an NLMSG_ERROR.
     */
    private int awaitReply(final int seq, final String what)
    {
        while (true)
        {
            final int length = socket.receiveFromKernel(TIMEOUT_MS, what);
            long position = 0;
            while (position < length)
            {
                final int messageLength = RtnetlinkParser.messageLength(replies, position, length);
                if (RtnetlinkParser.sequence(replies, position) == seq)
                {
                    replyOffset = position;
                    replyLength = messageLength;
                    return RtnetlinkParser.type(replies, position) == Rtnetlink.NLMSG_ERROR ?
                        RtnetlinkParser.error(replies, position, messageLength) : 0;
                }
                position += Rtnetlink.align(messageLength);
            }
        }
    }

    /**
     * Checks that the reply is of {@code expectedType} (for an acknowledgement: NLMSG_ERROR with error 0).
     *
     * @throws NativeCallException for an error.
     * @throws NetlinkFormatException for a reply of another type.
     */
    private void expectReply(final int error, final int expectedType, final int requestType, final String what)
    {
        if (error < 0)
        {
            throw failure(requestType, -error, RtnetlinkParser.errorText(replies, replyOffset, replyLength), what);
        }
        final int type = RtnetlinkParser.type(replies, replyOffset);
        if (type != expectedType)
        {
            throw new NetlinkFormatException(what + ": the kernel answered " + Rtnetlink.typeName(type) +
                " where " + Rtnetlink.typeName(expectedType) + " was expected");
        }
    }

    private static NativeCallException failure(final int requestType, final int errno, final String text,
        final String what)
    {
        return new NativeCallException("netlink " + Rtnetlink.typeName(requestType), errno,
            what + (text == null || text.isEmpty() ? "" : " (the kernel says: " + text + ")"));
    }

    private int nextSequence()
    {
        sequence = (sequence + 1) & 0x7FFF_FFFF;
        return sequence;
    }

    private static int familyOf(final InetAddress address)
    {
        if (address instanceof Inet4Address)
        {
            return Sockets.AF_INET;
        }
        if (address instanceof Inet6Address)
        {
            return Sockets.AF_INET6;
        }
        throw new IllegalArgumentException("not an IPv4 or IPv6 address: " + address);
    }

    private static void checkFamily(final int family)
    {
        if (family != Sockets.AF_INET && family != Sockets.AF_INET6)
        {
            throw new IllegalArgumentException("family " + family + " is neither AF_INET (2) nor AF_INET6 (10)");
        }
    }

    private static void checkIndex(final int index)
    {
        if (index <= 0)
        {
            throw new IllegalArgumentException("interface index " + index + " is not positive");
        }
    }
}
