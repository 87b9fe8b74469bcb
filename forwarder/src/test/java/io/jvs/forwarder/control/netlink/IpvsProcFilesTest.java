package io.jvs.forwarder.control.netlink;

import io.jvs.core.net.IpAddress;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code /proc/net/ip_vs} and {@code /proc/net/ip_vs_stats} against the kernel's format strings
 * ({@code ip_vs_info_seq_show}, {@code ip_vs_stats_show}), written out by hand here for each kind of service.
 */
class IpvsProcFilesTest
{
    private static final IpvsServiceKey TCP_V4 = IpvsServiceKey.of(6, IpAddress.parse("10.0.0.100"), 80);
    private static final IpvsServiceKey UDP_V4_OPS = IpvsServiceKey.of(17, IpAddress.parse("10.0.0.100"), 53);
    private static final IpvsServiceKey TCP_V6 = IpvsServiceKey.of(6, IpAddress.parse("2001:db8::10"), 443);
    private static final IpvsServiceKey MARK = IpvsServiceKey.ofMark(Netlink.AF_INET, 7);

    private final IpvsNetlinkBackend backend = new Listed(
        List.of(
            service(TCP_V4, "wlc", IpvsNetlink.SVC_F_HASHED, 0, 0,
                new IpvsStats(3, 100, 90, 6000, 120000, 1, 10, 9, 600, 12000)),
            service(UDP_V4_OPS, "rr", IpvsNetlink.SVC_F_ONEPACKET | IpvsNetlink.SVC_F_PERSISTENT, 300, 0xFFFFFF00,
                new IpvsStats(0x1_0000_0000L, 1, 0, 1L << 40, 0, 0, 0, 0, 0, 0)),
            service(TCP_V6, "sh", IpvsNetlink.SVC_F_ONEPACKET | IpvsNetlink.SVC_F_PERSISTENT, 60, 64,
                IpvsStats.ZERO),
            service(MARK, "lc", IpvsNetlink.SVC_F_ONEPACKET, 0, 0, IpvsStats.ZERO)),
        Map.of(
            TCP_V4, List.of(dest("192.168.1.2", 8080, IpvsNetlink.CONN_F_MASQ, 1, 12, 345),
                dest("192.168.1.3", 8080, IpvsNetlink.CONN_F_TUNNEL, 0, 0, 0)),
            TCP_V6, List.of(dest("2001:db8:1::2", 443, IpvsNetlink.CONN_F_DROUTE, 65535, 1234567890, 0)),
            MARK, List.of(dest("192.168.1.4", 0, IpvsNetlink.CONN_F_LOCALNODE, 3, 0, 1))));

    @Test
    void shouldListServicesAndServersAsIpVsInfoSeqShowPrintsThem()
    {
        assertThat(IpvsProcFiles.services(backend, 250)).isEqualTo(
            "IP Virtual Server version 1.2.1 (size=4096)\n" +
            "Prot LocalAddress:Port Scheduler Flags\n" +
            "  -> RemoteAddress:Port Forward Weight ActiveConn InActConn\n" +
            // "%s  %08X:%04X %s %s " with no flags: two spaces after the scheduler.
            "TCP  0A000064:0050 wlc  \n" +
            "  -> C0A80102:1F90      Masq    1      12         345       \n" +
            "  -> C0A80103:1F90      Tunnel  0      0          0         \n" +
            // persistent: svc->timeout is in jiffies, 300 s at 250 Hz; "%s %s " leaves two spaces after "ops ".
            "UDP  0A000064:0035 rr ops  persistent 75000 FFFFFF00\n" +
            // An IPv6 service's line has no ops, and its netmask is its prefix length.
            "TCP  [2001:0db8:0000:0000:0000:0000:0000:0010]:01BB sh persistent 15000 00000040\n" +
            "  -> [2001:0db8:0001:0000:0000:0000:0000:0002]:01BB      Route   65535  1234567890 0         \n" +
            "FWM  00000007 lc ops \n" +
            "  -> C0A80104:0000      Local   3      0          1         \n");
        assertThat(IpvsProcFiles.services(backend, 1000)).contains("rr ops  persistent 300000 FFFFFF00\n");
    }

    @Test
    void shouldSumTheServicesCountsInHexadecimalAsIpVsStatsShowPrintsThem()
    {
        assertThat(IpvsProcFiles.stats(backend)).isEqualTo(
            "   Total Incoming Outgoing         Incoming         Outgoing\n" +
            "   Conns  Packets  Packets            Bytes            Bytes\n" +
            "100000003       65       5A      10000001770            1D4C0\n\n" +
            " Conns/s   Pkts/s   Pkts/s          Bytes/s          Bytes/s\n" +
            "       1        A        9              258             2EE0\n");
    }

    @Test
    void shouldServeBothFilesAndNoOtherThroughProcFile()
    {
        assertThat(backend.procFile("/proc/net/ip_vs")).hasValueSatisfying(bytes ->
            assertThat(new String(bytes, StandardCharsets.US_ASCII)).startsWith("IP Virtual Server version 1.2.1"));
        assertThat(backend.procFile("/proc/net/ip_vs_stats")).hasValueSatisfying(bytes ->
            assertThat(new String(bytes, StandardCharsets.US_ASCII)).startsWith("   Total Incoming"));
        assertThat(backend.procFile("/proc/net/ip_vs_stats_percpu")).isEmpty();
    }

    @Test
    void shouldReadTheKernelsHzFromItsConfigurationAndFallBackTo250()
    {
        assertThat(IpvsProcFiles.hzIn("# CONFIG_HZ_100 is not set\nCONFIG_HZ_1000=y\nCONFIG_HZ=1000\n"))
            .isEqualTo(1000);
        assertThat(IpvsProcFiles.hzIn("CONFIG_HZ_PERIODIC=y\n")).isEqualTo(250);
        assertThat(IpvsProcFiles.hzIn("CONFIG_HZ=x\n")).isEqualTo(250);
        assertThat(IpvsProcFiles.hz()).isPositive();
    }

    private static IpvsServiceEntry service(final IpvsServiceKey key, final String scheduler, final int flags,
        final int timeout, final int netmask, final IpvsStats stats)
    {
        return new IpvsServiceEntry(key, scheduler, null, flags, timeout, netmask, stats);
    }

    private static IpvsDestEntry dest(final String address, final int port, final int forwarding, final int weight,
        final int active, final int inactive)
    {
        return new IpvsDestEntry(new IpvsDestination(IpAddress.parse(address), port, forwarding, weight, 0, 0, 0, 0,
            0), active, inactive, 0, IpvsStats.ZERO);
    }

    /** A backend that lists what it is given and changes nothing. */
    private record Listed(List<IpvsServiceEntry> services, Map<IpvsServiceKey, List<IpvsDestEntry>> dests)
        implements IpvsNetlinkBackend
    {
        @Override
        public int apply(final IpvsNetlinkRequest.Change change)
        {
            return Netlink.EINVAL;
        }

        @Override
        public List<IpvsServiceEntry> listServices()
        {
            return services;
        }

        @Override
        public List<IpvsDestEntry> listDests(final IpvsServiceKey service)
        {
            return dests.getOrDefault(service, List.of());
        }

        @Override
        public IpvsInfo info()
        {
            return new IpvsInfo(IpvsNetlink.VERSION_CODE, 4096);
        }

        @Override
        public IpvsTimeouts timeouts()
        {
            return new IpvsTimeouts(900, 120, 300);
        }

        @Override
        public String connectionsFile()
        {
            return "";
        }
    }
}
