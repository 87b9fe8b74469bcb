package io.jvs.forwarder.control.netlink;

import io.jvs.core.net.IpAddress;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.OptionalInt;
import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The IPVS family's requests decode as {@code ip_vs_genl_parse_service} and {@code ip_vs_genl_parse_dest} read them
 * (with the kernel's errno for what they refuse), and the service and server entries the replies carry decode back
 * to what was encoded, so what ipvsadm reads is what the backend said.
 */
class IpvsNetlinkCodecTest
{
    private static final IpvsServiceKey WEB = IpvsServiceKey.of(6, IpAddress.parse("10.0.0.1"), 80);

    /** The attributes after the generic header of a request built by the consumer. */
    private static ByteBuffer request(final Consumer<NetlinkWriter> body)
    {
        final NetlinkWriter writer = new NetlinkWriter(IpvsNetlink.FAMILY_ID, Netlink.NLM_F_REQUEST, 1, 1).genl(0, 1);
        body.accept(writer);
        return ByteBuffer.wrap(writer.finish()).position(Netlink.NLMSG_HDRLEN + Netlink.GENL_HDRLEN).slice()
            .order(Netlink.ORDER);
    }

    /** A service nest as ipvsadm's libipvs writes one, the full entry when options is true. */
    private static void service(final NetlinkWriter out, final int family, final String address, final int port,
        final boolean options)
    {
        final int nest = out.nest(IpvsNetlink.CMD_ATTR_SERVICE);
        out.u16(IpvsNetlink.SVC_ATTR_AF, family).u16(IpvsNetlink.SVC_ATTR_PROTOCOL, 6);
        final ByteBuffer bytes = ByteBuffer.allocate(16);
        final IpAddress ip = IpAddress.parse(address);
        if (ip.isV6())
        {
            bytes.putLong(ip.high()).putLong(ip.low());
        }
        else
        {
            bytes.putInt(ip.v4());
        }
        out.attribute(IpvsNetlink.SVC_ATTR_ADDR, bytes.array()).be16(IpvsNetlink.SVC_ATTR_PORT, port);
        if (options)
        {
            out.string(IpvsNetlink.SVC_ATTR_SCHED_NAME, "wrr")
                .attribute(IpvsNetlink.SVC_ATTR_FLAGS, ByteBuffer.allocate(8).order(Netlink.ORDER)
                    .putInt(IpvsNetlink.SVC_F_PERSISTENT).putInt(~0).array())
                .u32(IpvsNetlink.SVC_ATTR_TIMEOUT, 300);
            if (family == Netlink.AF_INET6)
            {
                out.u32(IpvsNetlink.SVC_ATTR_NETMASK, 64);
            }
            else
            {
                out.be32(IpvsNetlink.SVC_ATTR_NETMASK, 0xFFFFFF00);
            }
        }
        out.end(nest);
    }

    @Test
    void shouldDecodeAnAddedServiceAsIpvsadmSendsIt() throws Exception
    {
        final IpvsNetlinkRequest request = IpvsNetlinkCodec.decode(IpvsNetlink.CMD_NEW_SERVICE, false,
            request(out -> service(out, Netlink.AF_INET, "10.0.0.1", 80, true)));

        assertThat(request).isEqualTo(new IpvsNetlinkRequest.NewService(WEB,
            new IpvsServiceOptions("wrr", null, IpvsNetlink.SVC_F_PERSISTENT, ~0, 300, 0xFFFFFF00)));
    }

    @Test
    void shouldDecodeIpv6AndFwmarkServices() throws Exception
    {
        final IpvsNetlinkRequest v6 = IpvsNetlinkCodec.decode(IpvsNetlink.CMD_SET_SERVICE, false,
            request(out -> service(out, Netlink.AF_INET6, "2001:db8::1", 443, true)));
        assertThat(v6).isEqualTo(new IpvsNetlinkRequest.SetService(
            IpvsServiceKey.of(6, IpAddress.parse("2001:db8::1"), 443),
            new IpvsServiceOptions("wrr", null, IpvsNetlink.SVC_F_PERSISTENT, ~0, 300, 64)));

        final IpvsNetlinkRequest mark = IpvsNetlinkCodec.decode(IpvsNetlink.CMD_DEL_SERVICE, false, request(out ->
        {
            final int nest = out.nest(IpvsNetlink.CMD_ATTR_SERVICE);
            out.u16(IpvsNetlink.SVC_ATTR_AF, Netlink.AF_INET).u32(IpvsNetlink.SVC_ATTR_FWMARK, 7);
            out.end(nest);
        }));
        assertThat(mark).isEqualTo(new IpvsNetlinkRequest.DelService(IpvsServiceKey.ofMark(Netlink.AF_INET, 7)));
    }

    @Test
    void shouldRefuseWhatParseServiceRefuses()
    {
        assertErrno(IpvsNetlink.CMD_DEL_SERVICE, request(out -> { }), Netlink.EINVAL, "names no service");
        assertErrno(IpvsNetlink.CMD_NEW_SERVICE, request(out -> service(out, Netlink.AF_INET, "10.0.0.1", 80, false)),
            Netlink.EINVAL, "needs its scheduler, flags, timeout and netmask");
        assertErrno(IpvsNetlink.CMD_DEL_SERVICE, request(out ->
        {
            final int nest = out.nest(IpvsNetlink.CMD_ATTR_SERVICE);
            out.u16(IpvsNetlink.SVC_ATTR_AF, Netlink.AF_INET).u16(IpvsNetlink.SVC_ATTR_PROTOCOL, 6);
            out.end(nest);
        }), Netlink.EINVAL, "a fwmark or a protocol, address and port");
        assertErrno(IpvsNetlink.CMD_DEL_SERVICE, request(out ->
        {
            final int nest = out.nest(IpvsNetlink.CMD_ATTR_SERVICE);
            out.u16(IpvsNetlink.SVC_ATTR_AF, 7).u32(IpvsNetlink.SVC_ATTR_FWMARK, 1);
            out.end(nest);
        }), Netlink.EAFNOSUPPORT, "address family 7");
        assertErrno(IpvsNetlink.CMD_DEL_SERVICE, request(out ->
        {
            final int nest = out.nest(IpvsNetlink.CMD_ATTR_SERVICE);
            out.u16(IpvsNetlink.SVC_ATTR_AF, Netlink.AF_INET).u16(IpvsNetlink.SVC_ATTR_PROTOCOL, 6)
                .attribute(IpvsNetlink.SVC_ATTR_ADDR, new byte[17]).be16(IpvsNetlink.SVC_ATTR_PORT, 80);
            out.end(nest);
        }), Netlink.EINVAL, "17 bytes is longer than 16");
        assertErrno(IpvsNetlink.CMD_NEW_SERVICE, request(out ->
        {
            final int nest = out.nest(IpvsNetlink.CMD_ATTR_SERVICE);
            out.u16(IpvsNetlink.SVC_ATTR_AF, Netlink.AF_INET).u32(IpvsNetlink.SVC_ATTR_FWMARK, 1)
                .string(IpvsNetlink.SVC_ATTR_SCHED_NAME, "rr").attribute(IpvsNetlink.SVC_ATTR_FLAGS, new byte[4])
                .u32(IpvsNetlink.SVC_ATTR_TIMEOUT, 0).be32(IpvsNetlink.SVC_ATTR_NETMASK, -1);
            out.end(nest);
        }), Netlink.EINVAL, "the service flags have 4 bytes, not 8");
        assertErrno(IpvsNetlink.CMD_SET_INFO, request(out -> { }), Netlink.EOPNOTSUPP, "no command 14");
        assertErrno(99, request(out -> { }), Netlink.EOPNOTSUPP, "no command 99");
    }

    @Test
    void shouldDecodeServersTakingTheServicesFamilyWhenTheyHaveNone() throws Exception
    {
        final IpvsNetlinkRequest add = IpvsNetlinkCodec.decode(IpvsNetlink.CMD_NEW_DEST, false, request(out ->
        {
            service(out, Netlink.AF_INET, "10.0.0.1", 80, false);
            final int nest = out.nest(IpvsNetlink.CMD_ATTR_DEST);
            out.attribute(IpvsNetlink.DEST_ATTR_ADDR, new byte[] {10, 0, 1, 2}).be16(IpvsNetlink.DEST_ATTR_PORT, 8080)
                .u32(IpvsNetlink.DEST_ATTR_FWD_METHOD, IpvsNetlink.CONN_F_DROUTE | 0x100)
                .u32(IpvsNetlink.DEST_ATTR_WEIGHT, 5).u32(IpvsNetlink.DEST_ATTR_U_THRESH, 100)
                .u32(IpvsNetlink.DEST_ATTR_L_THRESH, 10).u8(IpvsNetlink.DEST_ATTR_TUN_TYPE, 1)
                .be16(IpvsNetlink.DEST_ATTR_TUN_PORT, 6080).u16(IpvsNetlink.DEST_ATTR_TUN_FLAGS, 1);
            out.end(nest);
        }));
        assertThat(add).isEqualTo(new IpvsNetlinkRequest.NewDest(WEB, new IpvsDestination(IpAddress.parse("10.0.1.2"),
            8080, IpvsNetlink.CONN_F_DROUTE, 5, 100, 10, 1, 6080, 1)));

        final IpvsNetlinkRequest delete = IpvsNetlinkCodec.decode(IpvsNetlink.CMD_DEL_DEST, false, request(out ->
        {
            service(out, Netlink.AF_INET, "10.0.0.1", 80, false);
            final int nest = out.nest(IpvsNetlink.CMD_ATTR_DEST);
            out.attribute(IpvsNetlink.DEST_ATTR_ADDR, new byte[16]).be16(IpvsNetlink.DEST_ATTR_PORT, 80);
            out.end(nest);
        }));
        assertThat(delete).isEqualTo(new IpvsNetlinkRequest.DelDest(WEB,
            IpvsDestination.key(IpAddress.parse("0.0.0.0"), 80)));
    }

    @Test
    void shouldRefuseServersWithoutWhatTheyNeed()
    {
        assertErrno(IpvsNetlink.CMD_NEW_DEST, request(out -> service(out, Netlink.AF_INET, "10.0.0.1", 80, false)),
            Netlink.EINVAL, "names no real server");
        assertErrno(IpvsNetlink.CMD_NEW_DEST, request(out ->
        {
            service(out, Netlink.AF_INET, "10.0.0.1", 80, false);
            final int nest = out.nest(IpvsNetlink.CMD_ATTR_DEST);
            out.attribute(IpvsNetlink.DEST_ATTR_ADDR, new byte[4]).be16(IpvsNetlink.DEST_ATTR_PORT, 80);
            out.end(nest);
        }), Netlink.EINVAL, "forwarding method, weight and thresholds");
        assertErrno(IpvsNetlink.CMD_NEW_DEST, request(out ->
        {
            service(out, Netlink.AF_INET, "10.0.0.1", 80, false);
            final int nest = out.nest(IpvsNetlink.CMD_ATTR_DEST);
            out.attribute(IpvsNetlink.DEST_ATTR_ADDR, new byte[16]).be16(IpvsNetlink.DEST_ATTR_PORT, 80)
                .u16(IpvsNetlink.DEST_ATTR_ADDR_FAMILY, Netlink.AF_INET6)
                .u32(IpvsNetlink.DEST_ATTR_FWD_METHOD, IpvsNetlink.CONN_F_MASQ).u32(IpvsNetlink.DEST_ATTR_WEIGHT, 1)
                .u32(IpvsNetlink.DEST_ATTR_U_THRESH, 0).u32(IpvsNetlink.DEST_ATTR_L_THRESH, 0);
            out.end(nest);
        }), Netlink.EINVAL, "needs tunnelling");
    }

    @Test
    void shouldKeepTimeoutsThatAreAbsentOrZeroAndRefuseOnesOutOfRange() throws Exception
    {
        final IpvsNetlinkRequest set = IpvsNetlinkCodec.decode(IpvsNetlink.CMD_SET_CONFIG, false,
            request(out -> out.u32(IpvsNetlink.CMD_ATTR_TIMEOUT_TCP, 100).u32(IpvsNetlink.CMD_ATTR_TIMEOUT_UDP, 0)));
        assertThat(set).isEqualTo(new IpvsNetlinkRequest.SetConfig(OptionalInt.of(100), OptionalInt.empty(),
            OptionalInt.empty()));
        assertThat(((IpvsNetlinkRequest.SetConfig)set).applyTo(new IpvsTimeouts(900, 120, 300)))
            .isEqualTo(new IpvsTimeouts(100, 120, 300));
        assertErrno(IpvsNetlink.CMD_SET_CONFIG, request(out -> out.u32(IpvsNetlink.CMD_ATTR_TIMEOUT_TCP, -1)),
            Netlink.EINVAL, "4294967295 s is out of range");
    }

    @Test
    void shouldTellDumpsFromSingleRequests() throws Exception
    {
        assertThat(IpvsNetlinkCodec.decode(IpvsNetlink.CMD_GET_SERVICE, true, request(out -> { })))
            .isEqualTo(new IpvsNetlinkRequest.ListServices());
        assertThat(IpvsNetlinkCodec.decode(IpvsNetlink.CMD_GET_DEST, true,
            request(out -> service(out, Netlink.AF_INET, "10.0.0.1", 80, false))))
            .isEqualTo(new IpvsNetlinkRequest.ListDests(WEB));
        assertThat(IpvsNetlinkCodec.decode(IpvsNetlink.CMD_GET_DEST, true, request(out -> { })))
            .as("ip_vs_genl_dump_dests dumps nothing for a service it cannot parse")
            .isEqualTo(new IpvsNetlinkRequest.ListDests(null));
        assertThat(IpvsNetlinkCodec.decode(IpvsNetlink.CMD_ZERO, false, request(out -> { })))
            .isEqualTo(new IpvsNetlinkRequest.Zero(null));
        assertErrno(IpvsNetlink.CMD_GET_INFO, true, request(out -> { }), Netlink.EOPNOTSUPP, "cannot be dumped");
        assertErrno(IpvsNetlink.CMD_GET_DEST, false, request(out -> { }), Netlink.EOPNOTSUPP, "no command 8");
    }

    @Test
    void shouldDecodeTheEntriesItEncodesBackToTheSameValues() throws Exception
    {
        final IpvsStats stats = new IpvsStats(1L << 33, 2, 3, 4L << 40, 5, 6, 7, 8, 9, 10);
        for (final IpvsServiceEntry entry : new IpvsServiceEntry[] {
            new IpvsServiceEntry(WEB, "wlc", null, IpvsNetlink.SVC_F_PERSISTENT, 300, 0xFFFFFF00, stats),
            new IpvsServiceEntry(IpvsServiceKey.of(17, IpAddress.parse("2001:db8::1"), 53), "sh", "sip", 0, 0, 128,
                IpvsStats.ZERO),
            new IpvsServiceEntry(IpvsServiceKey.ofMark(Netlink.AF_INET6, 9), "rr", null, 0, 0, 128, stats)})
        {
            final ByteBuffer encoded = request(out -> IpvsNetlinkCodec.putService(out, entry));
            final IpvsNetlinkRequest.NewService decoded = (IpvsNetlinkRequest.NewService)IpvsNetlinkCodec.decode(
                IpvsNetlink.CMD_NEW_SERVICE, false, encoded.duplicate().order(Netlink.ORDER));
            assertThat(decoded.service()).isEqualTo(entry.key());
            assertThat(decoded.options()).isEqualTo(new IpvsServiceOptions(entry.scheduler(), entry.persistence(),
                entry.flags(), ~0, entry.timeout(), entry.netmask()));
            final NetlinkAttributes service = NetlinkAttributes.parse(encoded, IpvsNetlink.CMD_ATTR_MAX)
                .nested(IpvsNetlink.CMD_ATTR_SERVICE, IpvsNetlink.SVC_ATTR_MAX);
            final NetlinkAttributes stats32 = service.nested(IpvsNetlink.SVC_ATTR_STATS, 11);
            final NetlinkAttributes stats64 = service.nested(IpvsNetlink.SVC_ATTR_STATS64, 11);
            assertThat(stats32.u32(IpvsNetlink.STATS_ATTR_CONNS)).isEqualTo((int)entry.stats().conns());
            assertThat(stats32.u64(IpvsNetlink.STATS_ATTR_INBYTES)).isEqualTo(entry.stats().inBytes());
            assertThat(stats64.u64(IpvsNetlink.STATS_ATTR_CONNS)).isEqualTo(entry.stats().conns());
            assertThat(stats64.u64(IpvsNetlink.STATS_ATTR_OUTBPS)).isEqualTo(entry.stats().outBps());
        }

        final IpvsDestEntry dest = new IpvsDestEntry(new IpvsDestination(IpAddress.parse("10.0.1.2"), 8080,
            IpvsNetlink.CONN_F_TUNNEL, 5, 100, 10, 2, 6080, 1), 11, 12, 13, stats);
        final ByteBuffer encoded = request(out ->
        {
            service(out, Netlink.AF_INET, "10.0.0.1", 80, false);
            IpvsNetlinkCodec.putDest(out, dest);
        });
        final IpvsNetlinkRequest.NewDest decoded = (IpvsNetlinkRequest.NewDest)IpvsNetlinkCodec.decode(
            IpvsNetlink.CMD_NEW_DEST, false, encoded.duplicate().order(Netlink.ORDER));
        assertThat(decoded.destination()).isEqualTo(dest.destination());
        final NetlinkAttributes attributes = NetlinkAttributes.parse(encoded, IpvsNetlink.CMD_ATTR_MAX)
            .nested(IpvsNetlink.CMD_ATTR_DEST, IpvsNetlink.DEST_ATTR_MAX);
        assertThat(attributes.u32(IpvsNetlink.DEST_ATTR_ACTIVE_CONNS)).isEqualTo(11);
        assertThat(attributes.u32(IpvsNetlink.DEST_ATTR_INACT_CONNS)).isEqualTo(12);
        assertThat(attributes.u32(IpvsNetlink.DEST_ATTR_PERSIST_CONNS)).isEqualTo(13);
        assertThat(attributes.u16(IpvsNetlink.DEST_ATTR_ADDR_FAMILY)).isEqualTo(Netlink.AF_INET);
    }

    private static void assertErrno(final int command, final ByteBuffer attributes, final int errno,
        final String message)
    {
        assertErrno(command, false, attributes, errno, message);
    }

    private static void assertErrno(final int command, final boolean dump, final ByteBuffer attributes,
        final int errno, final String message)
    {
        assertThatThrownBy(() -> IpvsNetlinkCodec.decode(command, dump, attributes))
            .isInstanceOf(NetlinkException.class).hasMessageContaining(message)
            .extracting(ex -> ((NetlinkException)ex).errno()).isEqualTo(errno);
    }
}
