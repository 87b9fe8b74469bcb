package io.jvs.core.control;

import io.jvs.core.conn.ConnectionTimeouts;
import org.junit.jupiter.api.Test;

import static io.jvs.core.control.Fixtures.golden;
import static io.jvs.core.control.Fixtures.stateA;
import static io.jvs.core.control.Fixtures.stateB;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Golden listings: each expected text is what ipvsadm 1.31's printf formats (ipvsadm.c) give for the fixed states
 * of {@link Fixtures}; the comment on each test names the formats.
 */
class IpvsadmFormatterTest
{
    private static final ListFormat N = ListFormat.NUMERIC;

    private static ListFormat numeric(final boolean stats, final boolean rate, final boolean thresholds,
        final boolean persistent, final boolean noSort, final boolean exact, final boolean tunnel)
    {
        return new ListFormat(true, stats, rate, thresholds, persistent, noSort, exact, tunnel);
    }

    /**
     * list_all: "IP Virtual Server version %d.%d.%d (size=%d)\n"; print_title's default two lines; service
     * "%s %s" of svc_name ("%-4s %s", or "FWM  %d" — a mark above 2^31 prints negative) and scheduler, then
     * " (%s)" flags, " persistent %u", " mask %s" (inet_ntoa), " ops"; destination "  -> %-28s %-7s %-6d %-10u
     * %-10u\n". Sorted by ipvs_cmp_services (the big mark first: its unsigned difference reads as negative).
     */
    @Test
    void shouldListIpv4ServicesAsIpvsadmDoes()
    {
        assertThat(IpvsadmFormatter.list(stateA(), null, N, Names.NUMERIC)).isEqualTo(golden("A-n"));
    }

    /** As above with " mask %i" for an IPv6 prefix, "FWM  %d IPv6", bracketed IPv6 names, mapped addresses. */
    @Test
    void shouldListIpv6ServicesAsIpvsadmDoes()
    {
        assertThat(IpvsadmFormatter.list(stateB(), null, N, Names.NUMERIC)).isEqualTo(golden("B-n"));
    }

    /**
     * --stats: title "%-33s %8s %8s %8s %8s %8s\n  -> RemoteAddress:Port\n"; service "%-33s" and five
     * print_largenum ("%9llu" below 10^8, "%8lluK" below 10^9, "%8lluM" below 10^11); destination "  -> %-28s" and
     * five print_largenum.
     */
    @Test
    void shouldListStatistics()
    {
        assertThat(IpvsadmFormatter.list(stateA(), null, numeric(true, false, false, false, false, false, false),
            Names.NUMERIC)).isEqualTo(golden("A-n-stats"));
        assertThat(IpvsadmFormatter.list(stateB(), null, numeric(true, false, false, false, false, false, false),
            Names.NUMERIC)).isEqualTo(golden("B-n-stats"));
    }

    /** --stats --exact: print_largenum's "%*llu", width 9, or the digits and one. */
    @Test
    void shouldListExactStatistics()
    {
        assertThat(IpvsadmFormatter.list(stateA(), null, numeric(true, false, false, false, false, true, false),
            Names.NUMERIC)).isEqualTo(golden("A-n-stats-exact"));
    }

    /**
     * --rate: the CPS..OutBPS title; service "%-33s" and five print_largenum; destination
     * "  -> %-28s %8llu %8llu %8llu" then two print_largenum (InBPS, OutBPS).
     */
    @Test
    void shouldListRates()
    {
        assertThat(IpvsadmFormatter.list(stateA(), null, numeric(false, true, false, false, false, false, false),
            Names.NUMERIC)).isEqualTo(golden("A-n-rate"));
        assertThat(IpvsadmFormatter.list(stateA(), null, numeric(false, true, false, false, false, true, false),
            Names.NUMERIC)).isEqualTo(golden("A-n-rate-exact"));
    }

    /** --thresholds: title "%-33s %-10s %-10s %-10s %-10s"; destination "  -> %-28s %-10u %-10u %-10u %-10u\n". */
    @Test
    void shouldListThresholds()
    {
        assertThat(IpvsadmFormatter.list(stateA(), null, numeric(false, false, true, false, false, false, false),
            Names.NUMERIC)).isEqualTo(golden("A-n-thr"));
    }

    /** --persistent-conn: title "%-33s %-9s %-11s %-10s %-10s"; destination "  -> %-28s %-9u %-11u %-10u %-10u\n". */
    @Test
    void shouldListPersistentConnections()
    {
        assertThat(IpvsadmFormatter.list(stateA(), null, numeric(false, false, false, true, false, false, false),
            Names.NUMERIC)).isEqualTo(golden("A-n-pc"));
    }

    /** --tun-info: its title; destination "  -> %-28s %-7s %-13s %-6d %-10u %-10u\n", "ipip" or "n/a". */
    @Test
    void shouldListTunnelInformation()
    {
        assertThat(IpvsadmFormatter.list(stateA(), null, numeric(false, false, false, false, false, false, true),
            Names.NUMERIC)).isEqualTo(golden("A-n-tun"));
    }

    /** --nosort: the kernel's order, servers newest first as they were given. */
    @Test
    void shouldKeepKernelOrderWithNoSort()
    {
        assertThat(IpvsadmFormatter.list(stateA(), null, numeric(false, false, false, false, true, false, false),
            Names.NUMERIC)).isEqualTo(golden("A-n-nosort"));
        assertThat(IpvsadmFormatter.list(stateB(), null, numeric(false, false, false, false, true, false, false),
            Names.NUMERIC)).isEqualTo(golden("B-n-nosort"));
    }

    /** list_service (-L -t VIP:PORT): print_title and the one entry, no version header. */
    @Test
    void shouldListOneServiceWithoutTheHeader()
    {
        assertThat(IpvsadmFormatter.list(stateA(), Fixtures.tcp("10.0.0.100", 80), N, Names.NUMERIC))
            .isEqualTo(golden("A-one-n"));
        assertThat(IpvsadmFormatter.list(stateA(), Fixtures.tcp("10.0.0.100", 80),
            numeric(true, false, false, false, false, false, false), Names.NUMERIC)).isEqualTo(golden("A-one-n-stats"));
    }

    /**
     * -S -n (FMT_RULE): "-A %s -s %s", " -p %u", " -M %s" (IPv4, not /32) or " -M %i" (IPv6, not 128), " -o",
     * " -b " and the flags; "-a %s -r %s %s -w %d\n", with " --tun-type ipip" for every -i server
     * (print_tunnel_rule); svc_name "-t %s", "-u %s", "--sctp-service %s", "-f %d" or "-f %d -6"; no thresholds.
     */
    @Test
    void shouldSaveRules()
    {
        assertThat(IpvsadmFormatter.save(stateA(), true, Names.NUMERIC)).isEqualTo(golden("A-rule"));
        assertThat(IpvsadmFormatter.save(stateB(), true, Names.NUMERIC)).isEqualTo(golden("B-rule"));
    }

    /**
     * list_conn/print_conn: "IPVS connection entries\n", "pro expire %-11s %-18s %-18s %s\n" (or the
     * --persistent-conn title with "pe name" and "pe_data"), rows "%-3s %-6s %-11s %-18s %-18s %s\n" with the
     * expiry in whole seconds as "%02d:%02d".
     */
    @Test
    void shouldListConnectionEntries()
    {
        final IpvsView view = stateA().withConnections(Fixtures.connections());
        assertThat(IpvsadmFormatter.connections(view, N, Names.NUMERIC)).isEqualTo(golden("conns-n"));
        assertThat(IpvsadmFormatter.connections(view, numeric(false, false, false, true, false, false, false),
            Names.NUMERIC)).isEqualTo(golden("conns-n-pc"));
    }

    /**
     * Persistence templates, which IPVS lists among the connection entries (ip_vs_conn_seq_show, then print_conn's
     * "%-3s %-6s %-11s %-18s %-18s %s\n"): ip_vs_sched_persist's {@code <protocol, client network, 0, vaddr, vport,
     * daddr, dport>} in state NONE; ports 0 for a port-0 or FTP service; {@code <IP, network, 0, mark, 0, daddr, 0>}
     * for a firewall-mark service, the mark in the address's first 32 bits. The protocol "IP" is none of print_conn's
     * (proto 0), so without -n no port is named; TCP's port 0 has no name either.
     */
    /**
     * A listing written as it goes: the same text as the one made whole, handed over in pieces of at most 64 KiB (and a
     * line), the entries read once, as they are written (an iterable that is not a collection, as the daemon's is).
     */
    @Test
    void shouldWriteALongConnectionListingInPiecesAsItReadsTheEntries()
    {
        final int entries = 3_000;
        final int[] read = new int[1];
        final Iterable<ConnectionView> lazy = () -> new java.util.Iterator<>()
        {
            private int next;

            @Override
            public boolean hasNext()
            {
                return next < entries;
            }

            @Override
            public ConnectionView next()
            {
                read[0]++;
                final int n = next++;
                return new ConnectionView("TCP", Fixtures.ip("198.51.100." + (n % 250 + 1)), 1024 + n,
                    Fixtures.ip("198.51.100.10"), 80, Fixtures.ip("10.1.0." + (n % 3 + 11)), 8080, "ESTABLISHED",
                    n * 1000L);
            }
        };
        final IpvsView view = IpvsView.empty().withConnections(lazy);
        final java.util.List<Integer> pieces = new java.util.ArrayList<>();
        final StringBuilder written = new StringBuilder();
        IpvsadmFormatter.connections(view, N, Names.NUMERIC, new Appendable()
        {
            @Override
            public Appendable append(final CharSequence text)
            {
                pieces.add(text.length());
                written.append(text);
                return this;
            }

            @Override
            public Appendable append(final CharSequence text, final int start, final int end)
            {
                return append(text.subSequence(start, end));
            }

            @Override
            public Appendable append(final char c)
            {
                return append(String.valueOf(c));
            }
        });
        assertThat(read[0]).isEqualTo(entries);
        final String whole = IpvsadmFormatter.connections(view, N, Names.NUMERIC);
        assertThat(written.toString()).isEqualTo(whole);
        assertThat(whole.lines().count()).isEqualTo(entries + 2);
        assertThat(pieces).as("about 80 bytes an entry, in pieces of 64 KiB").hasSizeGreaterThan(2)
            .allSatisfy(piece -> assertThat(piece).isLessThanOrEqualTo(64 * 1024 + 200));
    }

    @Test
    void shouldListPersistenceTemplatesAsConnectionEntries()
    {
        final io.jvs.core.service.ServiceKey web = Fixtures.tcp("198.51.100.10", 80);
        final io.jvs.core.service.ServiceKey all = io.jvs.core.service.ServiceKey.of(io.jvs.core.net.Protocol.UDP,
            Fixtures.ip("198.51.100.10"), 0);
        final io.jvs.core.service.ServiceKey ftp = Fixtures.tcp("198.51.100.10", 21);
        final IpvsView view = IpvsView.empty().withConnections(java.util.List.of(
            ConnectionView.template(web, Fixtures.ip("198.51.100.2"), Fixtures.ip("10.1.0.13"), 8080, 58_999),
            ConnectionView.template(io.jvs.core.service.ServiceKey.ofFirewallMark(7, false),
                Fixtures.ip("198.51.100.0"), Fixtures.ip("10.1.0.12"), 8080, 28_000),
            ConnectionView.template(all, Fixtures.ip("198.51.100.0"), Fixtures.ip("10.1.0.11"), 53, 300_000),
            ConnectionView.template(ftp, Fixtures.ip("198.51.100.2"), Fixtures.ip("10.1.0.11"), 2121, 1_000),
            ConnectionView.template(io.jvs.core.service.ServiceKey.ofFirewallMark(7, true),
                Fixtures.ip("2001:db8:1::"), Fixtures.ip("2001:db8::1"), 443, 61_000)));
        final String expected = """
            IPVS connection entries
            pro expire state       source             virtual            destination
            TCP 00:58  NONE        198.51.100.2:0     198.51.100.10:80   10.1.0.13:8080
            IP  00:28  NONE        198.51.100.0:0     0.0.0.7:0          10.1.0.12:0
            UDP 05:00  NONE        198.51.100.0:0     198.51.100.10:0    10.1.0.11:0
            TCP 00:01  NONE        198.51.100.2:0     198.51.100.10:0    10.1.0.11:0
            IP  01:01  NONE        [2001:db8:1::]:0   [0:7::]:0          [2001:db8::1]:0
            """;
        assertThat(IpvsadmFormatter.connections(view, N, Names.NUMERIC)).isEqualTo(expected);
        final Names names = new Names()
        {
            @Override
            public String hostName(final io.jvs.core.net.IpAddress address)
            {
                return address.equals(Fixtures.ip("198.51.100.10")) ? "www" : null;
            }

            @Override
            public String serviceName(final int port, final io.jvs.core.net.Protocol protocol)
            {
                return port == 80 && protocol == io.jvs.core.net.Protocol.TCP ? "http" : null;
            }
        };
        assertThat(IpvsadmFormatter.connections(view, ListFormat.DEFAULT, names).lines().skip(2).toList())
            .containsExactly("TCP 00:58  NONE        198.51.100.2:0     www:http           10.1.0.13:8080",
                "IP  00:28  NONE        198.51.100.0:0     0.0.0.7:0          10.1.0.12:0",
                "UDP 05:00  NONE        198.51.100.0:0     www:0              10.1.0.11:0",
                "TCP 00:01  NONE        198.51.100.2:0     www:0              10.1.0.11:0",
                "IP  01:01  NONE        [2001:db8:1::]:0   [0:7::]:0          [2001:db8::1]:0");
    }

    /** list_timeout: "Timeout (tcp tcpfin udp): %d %d %d\n". */
    @Test
    void shouldListTimeouts()
    {
        assertThat(IpvsadmFormatter.timeouts(IpvsView.empty())).isEqualTo("Timeout (tcp tcpfin udp): 900 120 300\n");
        final IpvsView edited = IpvsView.empty().withTimeouts(new ConnectionTimeouts.Current(3600, 30, 60));
        assertThat(IpvsadmFormatter.timeouts(edited))
            .isEqualTo("Timeout (tcp tcpfin udp): 3600 30 60\n");
    }

    /** The header takes version and size from the view: "IP Virtual Server version %d.%d.%d (size=%d)\n". */
    @Test
    void shouldTakeTheHeaderFromTheView()
    {
        final IpvsView view = new IpvsView(0x010203, 1048576, java.util.List.of(), IpvsView.DEFAULT_TIMEOUTS,
            java.util.List.of());
        assertThat(IpvsadmFormatter.list(view, null, N, Names.NUMERIC)).startsWith(
            "IP Virtual Server version 1.2.3 (size=1048576)\n");
    }

    /** print_largenum's thresholds and suffixes, and its --exact widths. */
    @Test
    void shouldWriteLargeNumbersAsPrintLargenum()
    {
        assertThat(IpvsadmFormatter.largeNumber(99_999_999L, false)).isEqualTo(" 99999999");
        assertThat(IpvsadmFormatter.largeNumber(100_000_000L, false)).isEqualTo("  100000K");
        assertThat(IpvsadmFormatter.largeNumber(999_999_999L, false)).isEqualTo("  999999K");
        assertThat(IpvsadmFormatter.largeNumber(1_000_000_000L, false)).isEqualTo("    1000M");
        assertThat(IpvsadmFormatter.largeNumber(100_000_000_000L, false)).isEqualTo("     100G");
        assertThat(IpvsadmFormatter.largeNumber(100_000_000_000_000L, false)).isEqualTo("     100T");
        assertThat(IpvsadmFormatter.largeNumber(-1L, false)).isEqualTo("18446744T");
        assertThat(IpvsadmFormatter.largeNumber(12345678L, true)).isEqualTo(" 12345678");
        assertThat(IpvsadmFormatter.largeNumber(123456789L, true)).isEqualTo(" 123456789");
    }

    /** glibc inet_ntop: "::ffff:a.b.c.d" for mapped, and the v4-compatible "::a.b.c.d" when word 6 is not zero. */
    @Test
    void shouldWriteAddressesAsInetNtop()
    {
        assertThat(IpvsadmFormatter.ntop(Fixtures.ip("::ffff:10.0.0.7"))).isEqualTo("::ffff:10.0.0.7");
        assertThat(IpvsadmFormatter.ntop(Fixtures.ip("::102:304"))).isEqualTo("::1.2.3.4");
        assertThat(IpvsadmFormatter.ntop(Fixtures.ip("::1"))).isEqualTo("::1");
        assertThat(IpvsadmFormatter.ntop(Fixtures.ip("::"))).isEqualTo("::");
        assertThat(IpvsadmFormatter.ntop(Fixtures.ip("2001:db8::1"))).isEqualTo("2001:db8::1");
    }

    /** Without -n, names from the lookups, with svc_name cut at 33 and a server's name at 28 characters (IPv4). */
    @Test
    void shouldUseNamesWithoutNumericAndCutThemAsIpvsadm()
    {
        final Names names = new Names()
        {
            @Override
            public String hostName(final io.jvs.core.net.IpAddress address)
            {
                return "a-rather-long-host-name-for-" + address.toString().replace('.', '-') + ".example.com";
            }

            @Override
            public String serviceName(final int port, final io.jvs.core.net.Protocol protocol)
            {
                return port == 80 ? "http" : null;
            }
        };
        final String listing = IpvsadmFormatter.list(stateA(), Fixtures.tcp("10.0.0.100", 80), ListFormat.DEFAULT,
            names);
        assertThat(listing).contains("\nTCP  a-rather-long-host-name-for- wrr\n");
        assertThat(listing).contains("\n  -> a-rather-long-host-name-for- Masq    4      12         34        \n");
    }
}
