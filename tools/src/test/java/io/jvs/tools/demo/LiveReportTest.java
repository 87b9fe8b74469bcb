package io.jvs.tools.demo;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class LiveReportTest
{
    @Test
    void shouldPrintEachServersShareAgainstItsWeightThenPacketsPerSecondAndLatency()
    {
        final List<LiveReport.Server> servers = List.of(
            new LiveReport.Server("rs1", "172.16.0.2:8080", 1, 50, 1000),
            new LiveReport.Server("rs2", "172.16.0.3:8080", 2, 100, 1990),
            new LiveReport.Server("rs3", "172.16.0.4:8080", 3, 150, 3010));
        final DemoClientResult client = new DemoClientResult(Map.of("rs1", 1000L, "rs2", 1990L, "rs3", 3010L), 0,
            null, 300, 5_000_000_000L, new long[] {412_000, 1_250_000, 12_340_000, 345_600_000});

        final String report = LiveReport.format(servers, 30_000, 0, 5.0, client,
            new long[] {3_200, 8_900, 41_000, 120_000, 2_500_000});

        assertThat(report).isEqualTo(
            "server  address          weight  connections    share  weight share  requests\n" +
            "rs1     172.16.0.2:8080       1           50   16.7 %        16.7 %      1000\n" +
            "rs2     172.16.0.3:8080       2          100   33.3 %        33.3 %      1990\n" +
            "rs3     172.16.0.4:8080       3          150   50.0 %        50.0 %      3010\n" +
            "all                           6          300  100.0 %       100.0 %      6000\n" +
            "\n" +
            "through jvs: 30000 packets in 5.00 s, 6000 packets/s (both directions), 0 dropped\n" +
            "time per packet inside jvs (receive to transmit): p50 3.2 µs, p90 8.9 µs, p99 41 µs, p99.9 120 µs, " +
            "max 2500 µs\n" +
            "request latency as the client measured it: p50 0.412 ms, p90 1.25 ms, p99 12.3 ms, max 346 ms\n" +
            "  (an HTTP request's round trip: the client's and the server's JVMs, their TCP stacks, and jvs)\n" +
            "6000 requests answered, 0 failed, over 300 connections from the client\n");
    }

    @Test
    void shouldNameTheFirstFailureAndShowNoShareOfNothing()
    {
        final List<LiveReport.Server> servers = List.of(new LiveReport.Server("rs1", "172.16.0.2:8080", 1, 0, 0));
        final DemoClientResult client = new DemoClientResult(Map.of(), 4, "ConnectException", 4, 1_000_000_000L,
            new long[4]);

        final String report = LiveReport.format(servers, 0, 8, 1.0, client, new long[5]);

        assertThat(report).contains("rs1     172.16.0.2:8080       1            0        -       100.0 %         0\n",
            "0 packets in 1.00 s, 0 packets/s (both directions), 8 dropped\n",
            "0 requests answered, 4 failed (the first: ConnectException), over 4 connections");
    }

    @ParameterizedTest
    @CsvSource({"0, 0.000 ms", "412345, 0.412 ms", "1000000, 1.00 ms", "12345678, 12.3 ms", "999999999, 1000 ms"})
    void shouldShowMillisecondsWithThreeDigits(final long nanos, final String shown)
    {
        assertThat(LiveReport.millis(nanos)).isEqualTo(shown);
    }
}
