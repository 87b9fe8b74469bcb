package io.jvs.forwarder.control.netlink;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * The kernel's side of a generic netlink socket, for the two families an IPVS client talks to: the controller
 * ({@code nlctrl}: {@code CTRL_CMD_GETFAMILY} resolves "IPVS" to its id) and IPVS itself. Each datagram in gives the
 * datagrams the kernel would send back, in order, as {@code netlink_rcv_skb}, {@code genl_rcv_msg} and
 * {@code netlink_dump} make them: an answer per request, an acknowledgement when {@code NLM_F_ACK} asks for one or
 * an {@code NLMSG_ERROR} carrying {@code -errno} and the request when it fails, and a dump as messages flagged
 * {@code NLM_F_MULTI} packed into datagrams of at most {@link #MAX_DUMP_DATAGRAM} bytes and ended by
 * {@code NLMSG_DONE}. Nothing thrown from here escapes as anything but a {@link NetlinkException} for a datagram
 * too short to answer.
 */
public final class IpvsNetlinkEndpoint
{
    /**
     * The most bytes of one dump datagram: the kernel's {@code NLMSG_GOODSIZE} ceiling, and half of libnl's default
     * receive buffer, so a reader that does not peek for the size still gets whole datagrams.
     */
    public static final int MAX_DUMP_DATAGRAM = 8192;

    private static final int[][] IPVS_OPS = {
        {IpvsNetlink.CMD_NEW_SERVICE, GenericNetlink.GENL_CMD_CAP_DO},
        {IpvsNetlink.CMD_SET_SERVICE, GenericNetlink.GENL_CMD_CAP_DO},
        {IpvsNetlink.CMD_DEL_SERVICE, GenericNetlink.GENL_CMD_CAP_DO},
        {IpvsNetlink.CMD_GET_SERVICE, GenericNetlink.GENL_CMD_CAP_DO | GenericNetlink.GENL_CMD_CAP_DUMP},
        {IpvsNetlink.CMD_NEW_DEST, GenericNetlink.GENL_CMD_CAP_DO},
        {IpvsNetlink.CMD_SET_DEST, GenericNetlink.GENL_CMD_CAP_DO},
        {IpvsNetlink.CMD_DEL_DEST, GenericNetlink.GENL_CMD_CAP_DO},
        {IpvsNetlink.CMD_GET_DEST, GenericNetlink.GENL_CMD_CAP_DUMP},
        {IpvsNetlink.CMD_NEW_DAEMON, GenericNetlink.GENL_CMD_CAP_DO},
        {IpvsNetlink.CMD_DEL_DAEMON, GenericNetlink.GENL_CMD_CAP_DO},
        {IpvsNetlink.CMD_GET_DAEMON, GenericNetlink.GENL_CMD_CAP_DUMP},
        {IpvsNetlink.CMD_SET_CONFIG, GenericNetlink.GENL_CMD_CAP_DO},
        {IpvsNetlink.CMD_GET_CONFIG, GenericNetlink.GENL_CMD_CAP_DO},
        {IpvsNetlink.CMD_GET_INFO, GenericNetlink.GENL_CMD_CAP_DO},
        {IpvsNetlink.CMD_ZERO, GenericNetlink.GENL_CMD_CAP_DO},
        {IpvsNetlink.CMD_FLUSH, GenericNetlink.GENL_CMD_CAP_DO},
    };
    private static final int[][] CTRL_OPS = {
        {GenericNetlink.CTRL_CMD_GETFAMILY, GenericNetlink.GENL_CMD_CAP_DO | GenericNetlink.GENL_CMD_CAP_DUMP},
        {GenericNetlink.CTRL_CMD_GETPOLICY, GenericNetlink.GENL_CMD_CAP_DUMP},
    };

    private final IpvsNetlinkBackend backend;

    public IpvsNetlinkEndpoint(final IpvsNetlinkBackend backend)
    {
        this.backend = Objects.requireNonNull(backend, "backend");
    }

    /**
     * Answers one datagram.
     *
     * @return the datagrams to send back, in order (none for a message that asks for nothing).
     * @throws NetlinkException when the datagram is shorter than a netlink header: there is nothing to answer to, so
     *                          the caller should drop the client.
     */
    public List<byte[]> handle(final byte[] datagram) throws NetlinkException
    {
        if (datagram.length < Netlink.NLMSG_HDRLEN)
        {
            throw new NetlinkException(Netlink.EINVAL, "a datagram of " + datagram.length +
                " bytes holds no netlink header");
        }
        final List<byte[]> out = new ArrayList<>();
        final ByteBuffer in = ByteBuffer.wrap(datagram).order(Netlink.ORDER);
        // netlink_rcv_skb: message after message; a tail too short for a header is ignored.
        while (in.remaining() >= Netlink.NLMSG_HDRLEN)
        {
            final int start = in.position();
            final NetlinkMessage request;
            try
            {
                request = NetlinkMessage.next(in);
            }
            catch (final NetlinkException ex)
            {
                // The kernel drops the rest silently; the client is told, so that it does not wait for an answer.
                out.add(error(NetlinkMessage.headerOf(datagram, start), ex.errno(), false));
                break;
            }
            answer(request, out);
        }
        return out;
    }

    private void answer(final NetlinkMessage request, final List<byte[]> out)
    {
        if ((request.flags() & Netlink.NLM_F_REQUEST) == 0 || request.type() < Netlink.NLMSG_MIN_TYPE)
        {
            // Not a request, or a control message: nothing to do but acknowledge it when asked.
            acknowledge(request, out);
            return;
        }
        try
        {
            final boolean dumped = dispatch(request, out);
            if (!dumped)
            {
                acknowledge(request, out);
            }
        }
        catch (final NetlinkException ex)
        {
            out.add(error(request, ex.errno(), true));
        }
        catch (final RuntimeException ex)
        {
            // A backend that fails answers as the kernel does when it runs out of memory; the session goes on, and
            // the daemon's log says what happened.
            java.util.logging.Logger.getLogger(IpvsNetlinkEndpoint.class.getName()).log(java.util.logging.Level.WARNING,
                "IPVS netlink request failed in the backend (answered ENOMEM): " + ex, ex);
            out.add(error(request, Netlink.ENOMEM, true));
        }
    }

    private void acknowledge(final NetlinkMessage request, final List<byte[]> out)
    {
        if ((request.flags() & Netlink.NLM_F_ACK) != 0)
        {
            out.add(error(request, 0, false));
        }
    }

    /**
     * netlink_ack: the error (0 for an acknowledgement) and the request, whole for an error, its header alone
     * (flagged {@code NLM_F_CAPPED}) for an acknowledgement.
     */
    static byte[] error(final NetlinkMessage request, final int errno, final boolean whole)
    {
        final byte[] original = request.encode();
        final boolean full = errno != 0 && whole;
        return new NetlinkWriter(Netlink.NLMSG_ERROR, full ? 0 : Netlink.NLM_F_CAPPED, request.sequence(),
            request.port()).putInt(-errno).raw(full ? original : Arrays.copyOf(original, Netlink.NLMSG_HDRLEN))
            .finish();
    }

    /** @return true when the request was a dump (its answer ends with NLMSG_DONE, with no acknowledgement). */
    private boolean dispatch(final NetlinkMessage request, final List<byte[]> out) throws NetlinkException
    {
        final ByteBuffer payload = request.payloadBuffer();
        if (payload.remaining() < Netlink.GENL_HDRLEN)
        {
            throw new NetlinkException(Netlink.EINVAL, "no generic netlink header");
        }
        final int command = Byte.toUnsignedInt(payload.get(0));
        final boolean dump = (request.flags() & Netlink.NLM_F_DUMP) == Netlink.NLM_F_DUMP;
        final ByteBuffer attributes = payload.position(Netlink.GENL_HDRLEN).slice().order(Netlink.ORDER);
        return switch (request.type())
        {
            case GenericNetlink.ID_CTRL -> controller(request, command, dump, attributes, out);
            case IpvsNetlink.FAMILY_ID -> ipvs(request, IpvsNetlinkCodec.decode(command, dump, attributes), out);
            default -> throw new NetlinkException(Netlink.ENOENT, "no generic netlink family " + request.type());
        };
    }

    // ---------------------------------------------------------------------------------------------------------
    // nlctrl

    private boolean controller(final NetlinkMessage request, final int command, final boolean dump,
        final ByteBuffer attributes, final List<byte[]> out) throws NetlinkException
    {
        if (command != GenericNetlink.CTRL_CMD_GETFAMILY)
        {
            throw new NetlinkException(Netlink.EOPNOTSUPP, "nlctrl command " + command + " is not served");
        }
        if (dump)
        {
            final List<byte[]> families = List.of(family(request, Netlink.NLM_F_MULTI, true),
                family(request, Netlink.NLM_F_MULTI, false));
            dumpOut(request, families, out);
            return true;
        }
        final NetlinkAttributes attrs = NetlinkAttributes.parse(attributes, GenericNetlink.CTRL_ATTR_MAX);
        final Family family;
        if (attrs.has(GenericNetlink.CTRL_ATTR_FAMILY_ID))
        {
            family = Family.byId(attrs.u16(GenericNetlink.CTRL_ATTR_FAMILY_ID));
        }
        else if (attrs.has(GenericNetlink.CTRL_ATTR_FAMILY_NAME))
        {
            family = Family.byName(attrs.string(GenericNetlink.CTRL_ATTR_FAMILY_NAME, Integer.MAX_VALUE));
        }
        else
        {
            throw new NetlinkException(Netlink.EINVAL, "GETFAMILY names no family");
        }
        if (family == null)
        {
            throw new NetlinkException(Netlink.ENOENT, "no such generic netlink family");
        }
        out.add(family(request, 0, family == Family.IPVS));
        return false;
    }

    /** The families this endpoint has. */
    private enum Family
    {
        NLCTRL, IPVS;

        static Family byId(final int id)
        {
            return id == IpvsNetlink.FAMILY_ID ? IPVS : id == GenericNetlink.ID_CTRL ? NLCTRL : null;
        }

        static Family byName(final String name)
        {
            return name.equals(IpvsNetlink.FAMILY_NAME) ? IPVS : name.equals(GenericNetlink.CTRL_NAME) ? NLCTRL : null;
        }
    }

    /** ctrl_fill_info: the family's name, id, version, header size, highest attribute, operations, groups. */
    private static byte[] family(final NetlinkMessage request, final int flags, final boolean ipvs)
    {
        final NetlinkWriter writer = new NetlinkWriter(GenericNetlink.ID_CTRL, flags, request.sequence(),
            request.port()).genl(GenericNetlink.CTRL_CMD_NEWFAMILY, GenericNetlink.CTRL_VERSION);
        writer.string(GenericNetlink.CTRL_ATTR_FAMILY_NAME, ipvs ? IpvsNetlink.FAMILY_NAME : GenericNetlink.CTRL_NAME);
        writer.u16(GenericNetlink.CTRL_ATTR_FAMILY_ID, ipvs ? IpvsNetlink.FAMILY_ID : GenericNetlink.ID_CTRL);
        writer.u32(GenericNetlink.CTRL_ATTR_VERSION, ipvs ? IpvsNetlink.VERSION : GenericNetlink.CTRL_VERSION);
        writer.u32(GenericNetlink.CTRL_ATTR_HDRSIZE, 0);
        writer.u32(GenericNetlink.CTRL_ATTR_MAXATTR, ipvs ? IpvsNetlink.CMD_ATTR_MAX : GenericNetlink.CTRL_ATTR_MAX);
        final int[][] ops = ipvs ? IPVS_OPS : CTRL_OPS;
        final int opsNest = writer.nest(GenericNetlink.CTRL_ATTR_OPS);
        for (int i = 0; i < ops.length; i++)
        {
            final int op = writer.nest(i + 1);
            writer.u32(GenericNetlink.CTRL_ATTR_OP_ID, ops[i][0]);
            writer.u32(GenericNetlink.CTRL_ATTR_OP_FLAGS, ops[i][1] | GenericNetlink.GENL_CMD_CAP_HASPOL |
                (ipvs ? GenericNetlink.GENL_ADMIN_PERM : 0));
            writer.end(op);
        }
        writer.end(opsNest);
        if (!ipvs)
        {
            final int groups = writer.nest(GenericNetlink.CTRL_ATTR_MCAST_GROUPS);
            final int group = writer.nest(1);
            writer.string(GenericNetlink.CTRL_ATTR_MCAST_GRP_NAME, "notify");
            writer.u32(GenericNetlink.CTRL_ATTR_MCAST_GRP_ID, GenericNetlink.ID_CTRL);
            writer.end(group);
            writer.end(groups);
        }
        return writer.finish();
    }

    // ---------------------------------------------------------------------------------------------------------
    // IPVS

    private boolean ipvs(final NetlinkMessage request, final IpvsNetlinkRequest decoded, final List<byte[]> out)
        throws NetlinkException
    {
        switch (decoded)
        {
            case IpvsNetlinkRequest.Change change ->
            {
                final int errno = backend.apply(change);
                if (errno != 0)
                {
                    throw new NetlinkException(errno, "refused by the backend");
                }
                return false;
            }
            case IpvsNetlinkRequest.GetService get ->
            {
                final IpvsServiceEntry entry = backend.service(get.service())
                    .orElseThrow(() -> new NetlinkException(Netlink.ESRCH, "no such service"));
                final NetlinkWriter writer = reply(request, 0, IpvsNetlink.CMD_NEW_SERVICE);
                IpvsNetlinkCodec.putService(writer, entry);
                out.add(writer.finish());
                return false;
            }
            case IpvsNetlinkRequest.GetInfo info ->
            {
                final NetlinkWriter writer = reply(request, 0, IpvsNetlink.CMD_SET_INFO);
                IpvsNetlinkCodec.putInfo(writer, backend.info());
                out.add(writer.finish());
                return false;
            }
            case IpvsNetlinkRequest.GetConfig config ->
            {
                final NetlinkWriter writer = reply(request, 0, IpvsNetlink.CMD_SET_CONFIG);
                IpvsNetlinkCodec.putTimeouts(writer, backend.timeouts());
                out.add(writer.finish());
                return false;
            }
            case IpvsNetlinkRequest.ListServices list ->
            {
                final List<byte[]> messages = new ArrayList<>();
                for (final IpvsServiceEntry entry : backend.listServices())
                {
                    final NetlinkWriter writer = reply(request, Netlink.NLM_F_MULTI, IpvsNetlink.CMD_NEW_SERVICE);
                    IpvsNetlinkCodec.putService(writer, entry);
                    messages.add(writer.finish());
                }
                dumpOut(request, messages, out);
                return true;
            }
            case IpvsNetlinkRequest.ListDests list ->
            {
                final List<byte[]> messages = new ArrayList<>();
                if (list.service() != null)
                {
                    for (final IpvsDestEntry entry : backend.listDests(list.service()))
                    {
                        final NetlinkWriter writer = reply(request, Netlink.NLM_F_MULTI, IpvsNetlink.CMD_NEW_DEST);
                        IpvsNetlinkCodec.putDest(writer, entry);
                        messages.add(writer.finish());
                    }
                }
                dumpOut(request, messages, out);
                return true;
            }
            case IpvsNetlinkRequest.ListDaemons list ->
            {
                final List<byte[]> messages = new ArrayList<>();
                for (final IpvsDaemon daemon : backend.daemons())
                {
                    final NetlinkWriter writer = reply(request, Netlink.NLM_F_MULTI, IpvsNetlink.CMD_NEW_DAEMON);
                    IpvsNetlinkCodec.putDaemon(writer, daemon);
                    messages.add(writer.finish());
                }
                dumpOut(request, messages, out);
                return true;
            }
        }
    }

    private static NetlinkWriter reply(final NetlinkMessage request, final int flags, final int command)
    {
        return new NetlinkWriter(IpvsNetlink.FAMILY_ID, flags, request.sequence(), request.port())
            .genl(command, IpvsNetlink.VERSION);
    }

    /** netlink_dump: as many messages as fit in each datagram, then NLMSG_DONE (in the last one when it fits). */
    private static void dumpOut(final NetlinkMessage request, final List<byte[]> messages, final List<byte[]> out)
    {
        final byte[] done = new NetlinkWriter(Netlink.NLMSG_DONE, Netlink.NLM_F_MULTI, request.sequence(),
            request.port()).putInt(0).finish();
        final ByteBuffer datagram = ByteBuffer.allocate(MAX_DUMP_DATAGRAM);
        for (final byte[] message : messages)
        {
            if (datagram.position() > 0 && datagram.remaining() < Netlink.align(message.length))
            {
                out.add(Arrays.copyOf(datagram.array(), datagram.position()));
                datagram.clear();
            }
            if (Netlink.align(message.length) > datagram.capacity())
            {
                // One message larger than a dump datagram (none of IPVS's is): sent alone.
                out.add(message);
                continue;
            }
            datagram.put(message);
            while ((datagram.position() & 3) != 0)
            {
                datagram.put((byte)0);
            }
        }
        if (datagram.position() > 0 && datagram.remaining() < done.length)
        {
            out.add(Arrays.copyOf(datagram.array(), datagram.position()));
            datagram.clear();
        }
        datagram.put(done);
        out.add(Arrays.copyOf(datagram.array(), datagram.position()));
    }
}
