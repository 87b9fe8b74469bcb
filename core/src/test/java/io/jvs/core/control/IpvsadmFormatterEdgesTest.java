package io.jvs.core.control;

import io.jvs.core.net.IpAddress;
import io.jvs.core.net.Protocol;
import io.jvs.core.service.ForwardMethod;
import io.jvs.core.service.ServiceKey;
import io.jvs.core.service.ServiceSettings;
import org.junit.jupiter.api.Test;

import java.util.List;

import static io.jvs.core.control.Fixtures.dest;
import static io.jvs.core.control.Fixtures.ip;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * ipvsadm's formats where a field crosses a width: print_conn's "%02d:%02d" expiry at 9 and 10, and the names
 * ipvsadm looks up without -n, in a saved table and for the servers of a firewall-mark service (whose ports it
 * names as TCP's).
 */
class IpvsadmFormatterEdgesTest
{
    private static final Names NAMES = new Names()
    {
        @Override
        public String hostName(final IpAddress address)
        {
            return address.equals(ip("10.0.0.100")) ? "www" : null;
        }

        @Override
        public String serviceName(final int port, final Protocol protocol)
        {
            return port == 80 && protocol == Protocol.TCP ? "http" : null;
        }
    };

    private static String expiry(final long expiresMs)
    {
        final IpvsView view = IpvsView.empty().withConnections(List.of(new ConnectionView("TCP", ip("172.16.0.10"),
            40001, ip("10.0.0.100"), 80, ip("192.168.1.1"), 8080, "ESTABLISHED", expiresMs)));
        final String listing = IpvsadmFormatter.connections(view, ListFormat.NUMERIC, Names.NUMERIC);
        final String row = listing.split("\n")[2];
        return row.substring(4, 10);
    }

    @Test
    void shouldWriteTheExpiryWithTwoDigitsForMinutesAndSeconds()
    {
        assertThat(expiry(9_999)).isEqualTo("00:09 ");
        assertThat(expiry(10_000)).isEqualTo("00:10 ");
        assertThat(expiry(599_000)).isEqualTo("09:59 ");
        assertThat(expiry(600_000)).isEqualTo("10:00 ");
        assertThat(expiry(-5)).as("already due").isEqualTo("00:00 ");
    }

    @Test
    void shouldSaveWithNamesUnlessNumeric()
    {
        final IpvsView view = IpvsView.empty().withServices(List.of(ServiceView.of(Fixtures.tcp("10.0.0.100", 80),
            ServiceSettings.of("rr", false)).withDestinations(List.of(
            dest("192.168.1.1", 80, ForwardMethod.NAT, 2, 0, 0)))));
        assertThat(IpvsadmFormatter.save(view, false, NAMES)).isEqualTo(
            "-A -t www:http -s rr\n-a -t www:http -r 192.168.1.1:http -m -w 2\n");
        assertThat(IpvsadmFormatter.save(view, true, NAMES)).isEqualTo(
            "-A -t 10.0.0.100:80 -s rr\n-a -t 10.0.0.100:80 -r 192.168.1.1:80 -m -w 2\n");
    }

    @Test
    void shouldNameTheServerPortsOfAFirewallMarkServiceAsTcp()
    {
        final IpvsView view = IpvsView.empty().withServices(List.of(ServiceView.of(ServiceKey.ofFirewallMark(9,
            false), ServiceSettings.of("rr", false)).withDestinations(List.of(
            dest("192.168.1.1", 80, ForwardMethod.DR, 1, 0, 0)))));
        assertThat(IpvsadmFormatter.list(view, null, ListFormat.DEFAULT, NAMES))
            .contains("FWM  9 rr\n  -> 192.168.1.1:http ");
    }
}
