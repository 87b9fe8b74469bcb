package io.jvs.tools.bench;

import io.jvs.tools.CommandRun;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class TxgenBenchCommandTest
{
    @Test
    void shouldRefuseAnUnknownPortKind()
    {
        final CommandRun run = CommandRun.of("bench", "txgen", "--port", "pcap", "--tx", "g0", "--dst-mac",
            "02:b0:00:00:00:02");

        assertThat(run.status()).isEqualTo(2);
        assertThat(run.err()).contains("--port must be afxdp or afpacket, not pcap");
    }

    @Test
    void shouldRefuseADestinationThatIsNotAnIpv4Address()
    {
        final CommandRun run = CommandRun.of("bench", "txgen", "--tx", "g0", "--dst-mac", "02:b0:00:00:00:02",
            "--src-mac", "02:b0:00:00:00:01", "--dst-ip", "2001:db8::1");

        assertThat(run.status()).isEqualTo(2);
        assertThat(run.err()).contains("--dst-ip must be an IPv4 address, not 2001:db8::1");
    }

    @Test
    void shouldNameAMissingInterface()
    {
        final CommandRun run = CommandRun.of("bench", "txgen", "--tx", "jvs-no-such0", "--dst-mac",
            "02:b0:00:00:00:02");

        assertThat(run.status()).isEqualTo(2);
        assertThat(run.err()).contains("no interface jvs-no-such0 here");
    }

    @Test
    void shouldRefuseANegativeRateAndABurstOutOfRange()
    {
        final CommandRun rate = CommandRun.of("bench", "txgen", "--tx", "g0", "--dst-mac", "02:b0:00:00:00:02",
            "--src-mac", "02:b0:00:00:00:01", "--rate", "-5");
        final CommandRun burst = CommandRun.of("bench", "txgen", "--tx", "g0", "--dst-mac", "02:b0:00:00:00:02",
            "--src-mac", "02:b0:00:00:00:01", "--burst", "0");

        assertThat(rate.status()).isEqualTo(2);
        assertThat(rate.err()).contains("--rate must be 0 (as fast as the core can) or more, not -5");
        assertThat(burst.status()).isEqualTo(2);
        assertThat(burst.err()).contains("--burst must be 1..256, not 0");
    }
}
