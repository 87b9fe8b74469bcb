package io.jvs.core.service;

import io.jvs.core.net.IpAddress;
import io.jvs.core.net.Protocol;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A service's key is equal to another exactly when every part of it is (protocol, address, port, firewall mark and
 * family), as a record's own equality would have it, and equal keys hash alike: the service table, the persistence
 * groups and the daemon's reload find services by it.
 */
class ServiceKeyTest
{
    private static final ServiceKey WEB = ServiceKey.of(Protocol.TCP, IpAddress.parse("10.0.0.100"), 80);

    static List<ServiceKey> othersThanWeb()
    {
        return List.of(
            ServiceKey.of(Protocol.UDP, IpAddress.parse("10.0.0.100"), 80),
            ServiceKey.of(Protocol.SCTP, IpAddress.parse("10.0.0.100"), 80),
            ServiceKey.of(Protocol.TCP, IpAddress.parse("10.0.0.101"), 80),
            ServiceKey.of(Protocol.TCP, IpAddress.parse("10.0.0.100"), 81),
            ServiceKey.of(Protocol.TCP, IpAddress.parse("::ffff:10.0.0.100"), 80),
            new ServiceKey(Protocol.TCP, IpAddress.parse("10.0.0.100"), 80, 7, false),
            new ServiceKey(Protocol.TCP, IpAddress.parse("10.0.0.100"), 80, 0, true),
            ServiceKey.ofFirewallMark(80, false));
    }

    @Test
    void shouldEqualAKeyOfTheSameParts()
    {
        final ServiceKey same = ServiceKey.of(Protocol.TCP, IpAddress.parse("10.0.0.100"), 80);
        assertThat(same).isEqualTo(WEB).isNotSameAs(WEB).hasSameHashCodeAs(WEB);
        assertThat(ServiceKey.ofFirewallMark(5, true)).isEqualTo(ServiceKey.ofFirewallMark(5, true))
            .hasSameHashCodeAs(ServiceKey.ofFirewallMark(5, true))
            .isNotEqualTo(ServiceKey.ofFirewallMark(5, false)).isNotEqualTo(ServiceKey.ofFirewallMark(6, true));
        assertThat(WEB).isNotEqualTo(null).isNotEqualTo("TCP 10.0.0.100:80");
    }

    @ParameterizedTest
    @MethodSource("othersThanWeb")
    void shouldDifferFromAKeyThatDiffersInOnePart(final ServiceKey other)
    {
        assertThat(other).isNotEqualTo(WEB);
        assertThat(WEB).isNotEqualTo(other);
        final Map<ServiceKey, String> services = new HashMap<>();
        services.put(WEB, "web");
        services.put(other, "other");
        assertThat(services).hasSize(2).containsEntry(ServiceKey.of(Protocol.TCP, IpAddress.parse("10.0.0.100"), 80),
            "web");
    }
}
