package io.jvs.core.control;

import io.jvs.core.net.IpAddress;
import io.jvs.core.net.Protocol;
import io.jvs.core.sched.SchedulerFlags;
import io.jvs.core.service.ForwardMethod;
import io.jvs.core.service.ServiceKey;
import io.jvs.core.service.ServiceSettings;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The fixed states of the golden tests. The golden texts under src/test/resources/io/jvs/core/control were written
 * from ipvsadm 1.31's printf formats applied to these same states, independently of {@link IpvsadmFormatter}.
 */
final class Fixtures
{
    private Fixtures()
    {
    }

    static IpAddress ip(final String text)
    {
        return IpAddress.parse(text);
    }

    static ServiceKey tcp(final String address, final int port)
    {
        return ServiceKey.of(Protocol.TCP, ip(address), port);
    }

    static Counters counters(final long... values)
    {
        final long[] v = new long[10];
        System.arraycopy(values, 0, v, 0, values.length);
        return new Counters(v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9]);
    }

    static DestinationView dest(
        final String address, final int port, final ForwardMethod method, final int weight, final int active,
        final int inactive)
    {
        return new DestinationView(ip(address), port, method, weight, 0, 0, active, inactive, 0, Counters.ZERO);
    }

    /** IPv4: every forwarding method, sched flags of sh, mh and others, persistence with a mask, ops, fwmarks. */
    static IpvsView stateA()
    {
        final ServiceView web = new ServiceView(tcp("10.0.0.100", 80), ServiceSettings.of("wrr", false),
            counters(1234, 98765, 87654, 123456789, 9876543210L, 12, 345, 321, 45678, 1234567), List.of(
            dest("192.168.2.1", 80, ForwardMethod.TUN, 2, 1, 0).withCounters(counters(4, 40, 0, 4000, 0, 1, 2, 0, 300)),
            new DestinationView(ip("192.168.1.1"), 8080, ForwardMethod.NAT, 4, 100, 50, 12, 34, 0,
                counters(1000, 90000, 80000, 123000000, 9000000000L, 10, 300, 300, 45000, 1200000)),
            dest("192.168.1.2", 80, ForwardMethod.DR, 1, 3, 7)
                .withCounters(counters(230, 8725, 7654, 456789, 876543210, 1, 43, 21, 378, 34567))));
        final ServiceView dns = new ServiceView(ServiceKey.of(Protocol.UDP, ip("10.0.0.100"), 53),
            new ServiceSettings("sh", new SchedulerFlags(true, true, false, false, false, 0), true, 300, 24, true),
            Counters.ZERO, List.of(new DestinationView(ip("192.168.1.3"), 53, ForwardMethod.NAT, 1, 0, 0, 0, 0, 5,
            Counters.ZERO)));
        final ServiceView any = ServiceView.of(tcp("10.0.0.100", 0),
            new ServiceSettings("rr", SchedulerFlags.NONE, true, 360, 32, false));
        final ServiceView mark5 = ServiceView.of(ServiceKey.ofFirewallMark(5, false), ServiceSettings.of("wlc", false))
            .withDestinations(List.of(dest("192.168.1.4", 0, ForwardMethod.DR, 1, 0, 0)));
        final ServiceView bigMark = ServiceView.of(ServiceKey.ofFirewallMark((int)3000000000L, false),
            new ServiceSettings("mh", new SchedulerFlags(false, true, false, false, false, 0), false, 0, 32, false))
            .withDestinations(List.of(dest("192.168.1.5", 0, ForwardMethod.NAT, 65535, 0, 0)));
        final ServiceView flag3 = ServiceView.of(tcp("10.0.0.101", 443),
            new ServiceSettings("wlc", new SchedulerFlags(false, false, true, false, false, 0), false, 0, 32, false));
        return IpvsView.empty().withServices(List.of(web, dns, any, mark5, bigMark, flag3));
    }

    /** IPv6: a persistent service with a prefix, an IPv6 fwmark, a tunnel to IPv6 from IPv4, mapped addresses. */
    static IpvsView stateB()
    {
        final ServiceView web6 = new ServiceView(tcp("2001:db8::100", 443),
            new ServiceSettings("lc", SchedulerFlags.NONE, true, 60, 64, false), Counters.ZERO, List.of(
            dest("2001:db8::2", 443, ForwardMethod.DR, 1, 2, 1),
            dest("2001:db8::1", 8443, ForwardMethod.NAT, 5, 0, 0)));
        final ServiceView mark7 = ServiceView.of(ServiceKey.ofFirewallMark(7, true), ServiceSettings.of("sed", true))
            .withDestinations(List.of(dest("2001:db8::3", 0, ForwardMethod.NAT, 3, 0, 0)));
        final ServiceView sctp = ServiceView.of(ServiceKey.of(Protocol.SCTP, ip("10.0.0.1"), 3868),
            ServiceSettings.of("nq", false)).withDestinations(List.of(dest("2001:db8::9", 3868, ForwardMethod.TUN, 1,
            0, 0)));
        final ServiceView mapped = ServiceView.of(ServiceKey.of(Protocol.UDP, ip("::ffff:10.0.0.7"), 123),
            ServiceSettings.of("fo", true)).withDestinations(List.of(dest("::ffff:10.0.0.8", 123, ForwardMethod.NAT,
            1, 0, 0)));
        return IpvsView.empty().withServices(List.of(web6, mark7, sctp, mapped));
    }

    static List<ConnectionView> connections()
    {
        return List.of(
            new ConnectionView("TCP", ip("172.16.0.10"), 40001, ip("10.0.0.100"), 80, ip("192.168.1.1"), 8080,
                "ESTABLISHED", 899999),
            new ConnectionView("UDP", ip("172.16.0.11"), 5353, ip("10.0.0.100"), 53, ip("192.168.1.3"), 53, "UDP",
                299000),
            new ConnectionView("TCP", ip("2001:db8:1::10"), 50000, ip("2001:db8::100"), 443, ip("2001:db8::1"), 8443,
                "SYN_RECV", 59500),
            new ConnectionView("TCP", ip("172.16.0.12"), 40002, ip("10.0.0.1"), 3868, ip("2001:db8::9"), 3868,
                "FIN_WAIT", 6000999));
    }

    static String golden(final String name)
    {
        try (InputStream in = Fixtures.class.getResourceAsStream(name + ".txt"))
        {
            if (in == null)
            {
                throw new IllegalStateException("no golden " + name);
            }
            return new String(in.readAllBytes(), StandardCharsets.US_ASCII);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }
}
