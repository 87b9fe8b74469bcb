package io.jvs.forwarder.control.netlink;

import io.jvs.core.net.IpAddress;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What the kernel's side of the socket answers: nlctrl resolves "IPVS" (and itself) with the family's id, version,
 * header size, highest attribute and operations; a request is answered, acknowledged when it asks, or refused with
 * an {@code NLMSG_ERROR} carrying {@code -errno} and the whole request; dumps come as {@code NLM_F_MULTI} messages
 * packed into datagrams no larger than {@link IpvsNetlinkEndpoint#MAX_DUMP_DATAGRAM}, ended by {@code NLMSG_DONE};
 * malformed datagrams get an error (or, with no header at all, an exception for the session to drop the client),
 * and a failing backend neither escapes nor stops the next request.
 */
class IpvsNetlinkEndpointTest
{
    private static final int PORT = 4242;
    private static final IpvsServiceKey WEB = IpvsServiceKey.of(6, IpAddress.parse("10.0.0.1"), 80);

    private final InMemoryIpvsBackend backend = new InMemoryIpvsBackend();
    private final IpvsNetlinkEndpoint endpoint = new IpvsNetlinkEndpoint(backend);

    private static byte[] request(final int type, final int flags, final int sequence, final int command,
        final Consumer<NetlinkWriter> body)
    {
        final NetlinkWriter writer = new NetlinkWriter(type, Netlink.NLM_F_REQUEST | flags, sequence, PORT)
            .genl(command, 1);
        body.accept(writer);
        return writer.finish();
    }

    private static byte[] addService(final int sequence, final String address)
    {
        return request(IpvsNetlink.FAMILY_ID, Netlink.NLM_F_ACK, sequence, IpvsNetlink.CMD_NEW_SERVICE, out ->
        {
            final int nest = out.nest(IpvsNetlink.CMD_ATTR_SERVICE);
            out.u16(IpvsNetlink.SVC_ATTR_AF, Netlink.AF_INET).u16(IpvsNetlink.SVC_ATTR_PROTOCOL, 6)
                .attribute(IpvsNetlink.SVC_ATTR_ADDR, IpAddress.parse(address).toInetAddress().getAddress())
                .be16(IpvsNetlink.SVC_ATTR_PORT, 80).string(IpvsNetlink.SVC_ATTR_SCHED_NAME, "rr")
                .attribute(IpvsNetlink.SVC_ATTR_FLAGS, new byte[8]).u32(IpvsNetlink.SVC_ATTR_TIMEOUT, 0)
                .be32(IpvsNetlink.SVC_ATTR_NETMASK, -1);
            out.end(nest);
        });
    }

    /** The errno of an NLMSG_ERROR datagram (0 for an acknowledgement), checking its header against the request. */
    private static int errno(final byte[] datagram, final byte[] request)
    {
        final NetlinkMessage reply = single(datagram);
        assertThat(reply.type()).isEqualTo(Netlink.NLMSG_ERROR);
        final ByteBuffer payload = reply.payloadBuffer();
        final int errno = -payload.getInt(0);
        final ByteBuffer echoed = payload.position(4).slice().order(Netlink.ORDER);
        assertThat(echoed.getInt(8)).as("sequence").isEqualTo(ByteBuffer.wrap(request).order(Netlink.ORDER)
            .getInt(8));
        if (errno != 0)
        {
            assertThat(reply.flags()).isZero();
            final byte[] whole = new byte[echoed.remaining()];
            echoed.get(whole);
            assertThat(whole).as("the whole request echoed").isEqualTo(request);
        }
        else
        {
            assertThat(reply.flags()).isEqualTo(Netlink.NLM_F_CAPPED);
            assertThat(echoed.remaining()).as("the header alone").isEqualTo(Netlink.NLMSG_HDRLEN);
        }
        return errno;
    }

    private static NetlinkMessage single(final byte[] datagram)
    {
        try
        {
            final List<NetlinkMessage> messages = NetlinkMessage.split(datagram);
            assertThat(messages).hasSize(1);
            return messages.getFirst();
        }
        catch (final NetlinkException ex)
        {
            throw new AssertionError(ex);
        }
    }

    private static NetlinkAttributes attributes(final NetlinkMessage message, final int max) throws NetlinkException
    {
        return NetlinkAttributes.parse(message.payloadBuffer().position(Netlink.GENL_HDRLEN), max);
    }

    @Test
    void shouldResolveTheIpvsFamilyByNameAsLibnlAsksAndAcknowledge() throws Exception
    {
        final byte[] request = request(GenericNetlink.ID_CTRL, Netlink.NLM_F_ACK, 7,
            GenericNetlink.CTRL_CMD_GETFAMILY, out -> out.string(GenericNetlink.CTRL_ATTR_FAMILY_NAME, "IPVS"));

        final List<byte[]> answers = endpoint.handle(request);

        assertThat(answers).hasSize(2);
        final NetlinkMessage family = single(answers.get(0));
        assertThat(family.type()).isEqualTo(GenericNetlink.ID_CTRL);
        assertThat(family.sequence()).isEqualTo(7);
        assertThat(family.port()).isEqualTo(PORT);
        assertThat(family.payload()[0]).isEqualTo((byte)GenericNetlink.CTRL_CMD_NEWFAMILY);
        final NetlinkAttributes attributes = attributes(family, GenericNetlink.CTRL_ATTR_MAX);
        assertThat(attributes.string(GenericNetlink.CTRL_ATTR_FAMILY_NAME, 15)).isEqualTo("IPVS");
        assertThat(attributes.u16(GenericNetlink.CTRL_ATTR_FAMILY_ID)).isEqualTo(IpvsNetlink.FAMILY_ID);
        assertThat(attributes.u32(GenericNetlink.CTRL_ATTR_VERSION)).isEqualTo(1);
        assertThat(attributes.u32(GenericNetlink.CTRL_ATTR_HDRSIZE)).isZero();
        assertThat(attributes.u32(GenericNetlink.CTRL_ATTR_MAXATTR)).isEqualTo(IpvsNetlink.CMD_ATTR_MAX);
        final NetlinkAttributes ops = attributes.nested(GenericNetlink.CTRL_ATTR_OPS, 32);
        final List<Integer> commands = new ArrayList<>();
        for (int i = 1; ops.has(i); i++)
        {
            final NetlinkAttributes op = ops.nested(i, 2);
            commands.add(op.u32(GenericNetlink.CTRL_ATTR_OP_ID));
            assertThat(op.u32(GenericNetlink.CTRL_ATTR_OP_FLAGS) & GenericNetlink.GENL_ADMIN_PERM).isNotZero();
        }
        assertThat(commands).hasSize(16).doesNotContain(IpvsNetlink.CMD_SET_INFO);
        assertThat(errno(answers.get(1), request)).isZero();
    }

    @Test
    void shouldResolveByIdDumpTheFamiliesAndRefuseAnUnknownOne() throws Exception
    {
        final byte[] byId = request(GenericNetlink.ID_CTRL, 0, 1, GenericNetlink.CTRL_CMD_GETFAMILY,
            out -> out.u16(GenericNetlink.CTRL_ATTR_FAMILY_ID, GenericNetlink.ID_CTRL));
        final List<byte[]> nlctrl = endpoint.handle(byId);
        assertThat(nlctrl).as("no acknowledgement unasked").hasSize(1);
        assertThat(attributes(single(nlctrl.getFirst()), GenericNetlink.CTRL_ATTR_MAX)
            .string(GenericNetlink.CTRL_ATTR_FAMILY_NAME, 15)).isEqualTo("nlctrl");

        final List<byte[]> dump = endpoint.handle(request(GenericNetlink.ID_CTRL, Netlink.NLM_F_DUMP, 2,
            GenericNetlink.CTRL_CMD_GETFAMILY, out -> { }));
        final List<NetlinkMessage> messages = NetlinkMessage.split(dump.getFirst());
        assertThat(messages).extracting(NetlinkMessage::type).containsExactly(GenericNetlink.ID_CTRL,
            GenericNetlink.ID_CTRL, Netlink.NLMSG_DONE);
        assertThat(messages).allMatch(message -> (message.flags() & Netlink.NLM_F_MULTI) != 0);

        final byte[] unknown = request(GenericNetlink.ID_CTRL, Netlink.NLM_F_ACK, 3,
            GenericNetlink.CTRL_CMD_GETFAMILY, out -> out.string(GenericNetlink.CTRL_ATTR_FAMILY_NAME, "nl80211"));
        final List<byte[]> refused = endpoint.handle(unknown);
        assertThat(refused).hasSize(1);
        assertThat(errno(refused.getFirst(), unknown)).isEqualTo(Netlink.ENOENT);
    }

    @Test
    void shouldAnswerGetInfoAndGetConfig() throws Exception
    {
        final List<byte[]> info = endpoint.handle(request(IpvsNetlink.FAMILY_ID, Netlink.NLM_F_ACK, 5,
            IpvsNetlink.CMD_GET_INFO, out -> { }));
        assertThat(info).hasSize(2);
        final NetlinkMessage reply = single(info.getFirst());
        assertThat(reply.payload()[0]).isEqualTo((byte)IpvsNetlink.CMD_SET_INFO);
        final NetlinkAttributes attributes = attributes(reply, 2);
        assertThat(attributes.u32(IpvsNetlink.INFO_ATTR_VERSION)).isEqualTo(0x010201);
        assertThat(attributes.u32(IpvsNetlink.INFO_ATTR_CONN_TAB_SIZE)).isEqualTo(4096);

        final NetlinkAttributes timeouts = attributes(single(endpoint.handle(request(IpvsNetlink.FAMILY_ID, 0, 6,
            IpvsNetlink.CMD_GET_CONFIG, out -> { })).getFirst()), IpvsNetlink.CMD_ATTR_MAX);
        assertThat(timeouts.u32(IpvsNetlink.CMD_ATTR_TIMEOUT_TCP)).isEqualTo(900);
        assertThat(timeouts.u32(IpvsNetlink.CMD_ATTR_TIMEOUT_TCP_FIN)).isEqualTo(120);
        assertThat(timeouts.u32(IpvsNetlink.CMD_ATTR_TIMEOUT_UDP)).isEqualTo(300);
    }

    @Test
    void shouldAcknowledgeAChangeAndRefuseItsRepeatWithTheBackendsErrno() throws Exception
    {
        final byte[] add = addService(10, "10.0.0.1");
        assertThat(errno(endpoint.handle(add).getFirst(), add)).isZero();
        assertThat(backend.serviceCount()).isEqualTo(1);

        final byte[] again = addService(11, "10.0.0.1");
        assertThat(errno(endpoint.handle(again).getFirst(), again)).isEqualTo(Netlink.EEXIST);

        // Without NLM_F_ACK a change that works is answered with nothing.
        final byte[] quiet = addService(12, "10.0.0.2");
        ByteBuffer.wrap(quiet).order(Netlink.ORDER).putShort(6, (short)Netlink.NLM_F_REQUEST);
        assertThat(endpoint.handle(quiet)).isEmpty();
        assertThat(backend.serviceCount()).isEqualTo(2);
    }

    @Test
    void shouldAnswerEachMessageOfADatagramInOrder() throws Exception
    {
        final byte[] first = addService(20, "10.0.0.1");
        final byte[] second = addService(21, "10.0.0.1");
        final List<byte[]> answers = endpoint.handle(ByteBuffer.allocate(first.length + second.length).put(first)
            .put(second).array());
        assertThat(answers).hasSize(2);
        assertThat(errno(answers.get(0), first)).isZero();
        assertThat(errno(answers.get(1), second)).isEqualTo(Netlink.EEXIST);
    }

    @Test
    void shouldSplitALargeDumpIntoBoundedDatagramsEndedByDone() throws Exception
    {
        for (int i = 0; i < 600; i++)
        {
            assertThat(backend.apply(new IpvsNetlinkRequest.NewService(IpvsServiceKey.of(6,
                IpAddress.ofV4(0x0A000000 + i), 80), new IpvsServiceOptions("wlc", null, 0, 0, 0, -1)))).isZero();
        }

        final List<byte[]> dump = endpoint.handle(request(IpvsNetlink.FAMILY_ID, Netlink.NLM_F_DUMP | Netlink.NLM_F_ACK,
            30, IpvsNetlink.CMD_GET_SERVICE, out -> { }));

        assertThat(dump.size()).isGreaterThan(10);
        assertThat(dump).allMatch(datagram -> datagram.length <= IpvsNetlinkEndpoint.MAX_DUMP_DATAGRAM);
        final List<NetlinkMessage> messages = new ArrayList<>();
        for (final byte[] datagram : dump)
        {
            messages.addAll(NetlinkMessage.split(datagram));
        }
        assertThat(messages).hasSize(601).allMatch(message -> message.sequence() == 30 && message.port() == PORT &&
            (message.flags() & Netlink.NLM_F_MULTI) != 0);
        assertThat(messages.getLast().type()).as("no acknowledgement after a dump").isEqualTo(Netlink.NLMSG_DONE);
        final List<IpvsServiceKey> keys = new ArrayList<>();
        for (final NetlinkMessage message : messages.subList(0, 600))
        {
            keys.add(IpvsNetlinkCodec.service(attributes(message, IpvsNetlink.CMD_ATTR_MAX)));
        }
        assertThat(keys).doesNotHaveDuplicates().hasSize(600).contains(WEB);
    }

    @Test
    void shouldDumpNothingButDoneForTheServersOfAMissingService() throws Exception
    {
        final List<byte[]> dump = endpoint.handle(request(IpvsNetlink.FAMILY_ID, Netlink.NLM_F_DUMP, 31,
            IpvsNetlink.CMD_GET_DEST, out -> { }));
        assertThat(dump).hasSize(1);
        assertThat(single(dump.getFirst()).type()).isEqualTo(Netlink.NLMSG_DONE);
    }

    @Test
    void shouldAnswerMalformedRequestsWithErrorsAndKeepServing() throws Exception
    {
        assertThatThrownBy(() -> endpoint.handle(new byte[15])).isInstanceOf(NetlinkException.class)
            .hasMessageContaining("holds no netlink header");

        final byte[] liar = addService(40, "10.0.0.1");
        ByteBuffer.wrap(liar).order(Netlink.ORDER).putInt(0, liar.length + 100);
        final NetlinkMessage cut = single(endpoint.handle(liar).getFirst());
        assertThat(cut.type()).isEqualTo(Netlink.NLMSG_ERROR);
        assertThat(cut.payloadBuffer().getInt(0)).isEqualTo(-Netlink.EINVAL);
        assertThat(cut.sequence()).isEqualTo(40);

        final byte[] headerOnly = new NetlinkWriter(IpvsNetlink.FAMILY_ID, Netlink.NLM_F_REQUEST, 41, PORT).finish();
        assertThat(errno(endpoint.handle(headerOnly).getFirst(), headerOnly)).isEqualTo(Netlink.EINVAL);

        final byte[] otherFamily = request(0x33, 0, 42, 1, out -> { });
        assertThat(errno(endpoint.handle(otherFamily).getFirst(), otherFamily)).isEqualTo(Netlink.ENOENT);

        final byte[] badAttribute = request(IpvsNetlink.FAMILY_ID, 0, 43, IpvsNetlink.CMD_DEL_SERVICE,
            out -> out.attribute(IpvsNetlink.CMD_ATTR_SERVICE, new byte[] {50, 0, 1, 0}));
        assertThat(errno(endpoint.handle(badAttribute).getFirst(), badAttribute)).isEqualTo(Netlink.EINVAL);

        // Not a request (no NLM_F_REQUEST): nothing done, acknowledged when asked, as netlink_rcv_skb.
        final byte[] notRequest = new NetlinkWriter(IpvsNetlink.FAMILY_ID, Netlink.NLM_F_ACK, 44, PORT)
            .genl(IpvsNetlink.CMD_FLUSH, 1).finish();
        assertThat(errno(endpoint.handle(notRequest).getFirst(), notRequest)).isZero();

        final byte[] add = addService(45, "10.0.0.1");
        assertThat(errno(endpoint.handle(add).getFirst(), add)).as("still serving").isZero();
    }

    @Test
    void shouldAnswerAFailingBackendWithAnErrorAndGoOn() throws Exception
    {
        final IpvsNetlinkEndpoint failing = new IpvsNetlinkEndpoint(new IpvsNetlinkBackend()
        {
            @Override
            public int apply(final IpvsNetlinkRequest.Change change)
            {
                return backend.apply(change);
            }

            @Override
            public List<IpvsServiceEntry> listServices()
            {
                throw new IllegalStateException("broken");
            }

            @Override
            public List<IpvsDestEntry> listDests(final IpvsServiceKey service)
            {
                return backend.listDests(service);
            }

            @Override
            public IpvsInfo info()
            {
                return backend.info();
            }

            @Override
            public IpvsTimeouts timeouts()
            {
                return backend.timeouts();
            }

            @Override
            public String connectionsFile()
            {
                return backend.connectionsFile();
            }
        });
        final byte[] dump = request(IpvsNetlink.FAMILY_ID, Netlink.NLM_F_DUMP, 50, IpvsNetlink.CMD_GET_SERVICE,
            out -> { });
        assertThat(errno(failing.handle(dump).getFirst(), dump)).isEqualTo(Netlink.ENOMEM);
        final byte[] info = request(IpvsNetlink.FAMILY_ID, Netlink.NLM_F_ACK, 51, IpvsNetlink.CMD_GET_INFO,
            out -> { });
        assertThat(failing.handle(info)).hasSize(2);
    }
}
