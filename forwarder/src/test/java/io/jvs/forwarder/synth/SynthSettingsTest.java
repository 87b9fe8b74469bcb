package io.jvs.forwarder.synth;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.List;
import java.util.function.UnaryOperator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SynthSettingsTest
{
    @Test
    void shouldDefaultToOneSecondAtOneHundredThousandPacketsPerSecond()
    {
        final SynthSettings settings = SynthSettings.defaults();

        assertThat(settings.totalPackets()).isEqualTo(100_000);
        assertThat(settings.scheduler()).isEqualTo("wlc");
        assertThat(settings.serversPerService()).isEqualTo(4);
        assertThat(List.of(settings.weight(0), settings.weight(1), settings.weight(2), settings.weight(3),
            settings.weight(4))).containsExactly(1, 2, 3, 4, 1);
        assertThat(SynthSettings.builder().durationSeconds(2.5).ratePps(1000).build().totalPackets()).isEqualTo(2500);
        assertThat(SynthSettings.builder().durationSeconds(2.5).packets(7).build().totalPackets()).isEqualTo(7);
    }

    @ParameterizedTest
    @ValueSource(strings = {"ipv6-share", "vlan-share", "udp-share", "icmp-error-share", "fragment-share",
        "malformed-share", "rst-share"})
    void shouldRefuseSharesOutsideZeroToOne(final String name)
    {
        for (final double share : new double[] {-0.1, 1.01, Double.NaN})
        {
            assertThatThrownBy(() -> withShare(name, share).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith(name + " must be in [0, 1]");
        }
        assertThat(withShare(name, 1.0).packets(1).build()).isNotNull();
    }

    @Test
    void shouldNameTheFieldOfABadCountOrName()
    {
        check(builder -> builder.clients(0), "clients must be in 1..");
        check(builder -> builder.services(1001), "services must be in 1..1000");
        check(builder -> builder.serversPerService(0), "servers-per-service must be in 1..250");
        check(builder -> builder.scheduler("fastest"), "scheduler fastest is not a scheduler jvs knows");
        check(builder -> builder.weights(List.of(1, -1)), "weights must be in 0..2147483647");
        check(builder -> builder.ratePps(0), "rate must be in 1..");
        check(builder -> builder.packets(-1), "packets must be 1 or more");
        check(builder -> builder.durationSeconds(0), "duration must be above 0 seconds");
        check(builder -> builder.zipfExponent(-1), "zipf must be in [0, 100]");
        check(builder -> builder.concurrentFlows(0), "concurrent-flows must be in 1..28232");
        check(builder -> builder.icmpErrorShare(0.6).malformedShare(0.6), "icmp-error-share and --malformed-share");
        check(builder -> builder.packets(Long.MAX_VALUE / 4).ratePps(1), "packets at rate 1 would run past 2106");
    }

    private static void check(final UnaryOperator<SynthSettings.Builder> change, final String message)
    {
        assertThatThrownBy(() -> change.apply(SynthSettings.builder()).build())
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageStartingWith(message);
    }

    private static SynthSettings.Builder withShare(final String name, final double share)
    {
        // The two shares of packets may not add up to more than 1: the other one is 0 here.
        final SynthSettings.Builder builder = SynthSettings.builder().icmpErrorShare(0).malformedShare(0);
        return switch (name)
        {
            case "ipv6-share" -> builder.ipv6Share(share);
            case "vlan-share" -> builder.vlanShare(share);
            case "udp-share" -> builder.udpShare(share);
            case "icmp-error-share" -> builder.icmpErrorShare(share);
            case "fragment-share" -> builder.fragmentShare(share);
            case "malformed-share" -> builder.malformedShare(share);
            default -> builder.rstShare(share);
        };
    }
}
