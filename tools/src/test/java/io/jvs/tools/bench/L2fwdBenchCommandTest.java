package io.jvs.tools.bench;

import io.jvs.tools.CommandRun;

import org.junit.jupiter.api.Test;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

class L2fwdBenchCommandTest
{
    private static final Pattern SUMMARY = Pattern.compile(
        "l2fwd memory: received=(\\d+) forwarded=(\\d+) dropped=0 seconds=[0-9.]+ Mpps=([0-9.]+) cpu-ns/frame=([0-9.]+)");

    @Test
    void shouldForwardSyntheticFramesAndPrintRateAndCpuTimePerFrame()
    {
        final CommandRun run = CommandRun.of("bench", "l2fwd", "--port", "memory", "--seconds", "1", "--warmup", "0");

        assertThat(run.status()).as(run.err()).isZero();
        final Matcher summary = SUMMARY.matcher(run.out());
        assertThat(summary.find()).as(run.out()).isTrue();
        assertThat(Long.parseLong(summary.group(2))).isPositive().isEqualTo(Long.parseLong(summary.group(1)));
        assertThat(Double.parseDouble(summary.group(3))).isPositive();
        assertThat(Double.parseDouble(summary.group(4))).isPositive();
        assertThat(run.out()).contains("  1 s  forwarded").contains("tx port: rx-frames=0 tx-frames=");
    }

    @Test
    void shouldForwardWithAYieldingIdleStrategy()
    {
        final CommandRun run = CommandRun.of("bench", "l2fwd", "--port", "memory", "--seconds", "1", "--warmup", "0",
            "--idle", "yield");

        assertThat(run.status()).as(run.err()).isZero();
        assertThat(SUMMARY.matcher(run.out()).find()).as(run.out()).isTrue();
    }

    @Test
    void shouldRefuseAnUnknownIdleStrategy()
    {
        final CommandRun run = CommandRun.of("bench", "l2fwd", "--port", "memory", "--idle", "sleep");

        assertThat(run.status()).isEqualTo(2);
        assertThat(run.err()).contains("--idle must be spin, yield, backoff or wait, not sleep");
    }

    @Test
    void shouldWaitInPollAndSendPagedOnlyOverAfPacket()
    {
        final CommandRun waiting = CommandRun.of("bench", "l2fwd", "--port", "memory", "--idle", "wait");
        final CommandRun paged = CommandRun.of("bench", "l2fwd", "--port", "afxdp", "--rx", "l0", "--dst-mac",
            "02:b0:00:00:01:02", "--paged-tx");

        assertThat(waiting.status()).isEqualTo(2);
        assertThat(waiting.err()).contains("--idle wait is for --port afpacket only");
        assertThat(paged.status()).isEqualTo(2);
        assertThat(paged.err()).contains("--paged-tx is for --port afpacket only");
        assertThat(CommandRun.of("bench", "l2fwd", "--help").out()).contains("--paged-tx", "wait (afpacket");
        final CommandRun oddBlock = CommandRun.of("bench", "l2fwd", "--port", "memory", "--rx-block-kib", "48");
        assertThat(oddBlock.status()).isEqualTo(2);
        assertThat(oddBlock.err()).contains("--rx-block-kib must be a power of two from 4 to 16384, not 48");
    }

    @Test
    void shouldRefuseAnUnknownPortKind()
    {
        final CommandRun run = CommandRun.of("bench", "l2fwd", "--port", "dpdk");

        assertThat(run.status()).isEqualTo(2);
        assertThat(run.err()).contains("--port must be afxdp, afpacket or memory, not dpdk");
    }

    @Test
    void shouldAskForTheInterfacesAndDestinationOfAKernelPort()
    {
        final CommandRun run = CommandRun.of("bench", "l2fwd", "--port", "afxdp", "--rx", "l0");

        assertThat(run.status()).isEqualTo(2);
        assertThat(run.err()).contains("--port afxdp needs --rx and --dst-mac");
    }

    @Test
    void shouldStealOnlyForAfPacket()
    {
        final CommandRun run = CommandRun.of("bench", "l2fwd", "--port", "afxdp", "--rx", "l0", "--dst-mac",
            "02:b0:00:00:01:02", "--steal");

        assertThat(run.status()).isEqualTo(2);
        assertThat(run.err()).contains("--steal is for --port afpacket only");
        assertThat(CommandRun.of("bench", "l2fwd", "--help").out()).contains("--steal");
    }

    @Test
    void shouldRefuseAMalformedMacAddress()
    {
        final CommandRun run = CommandRun.of("bench", "l2fwd", "--port", "memory", "--dst-mac", "02:b0:00:00:01");

        assertThat(run.status()).isEqualTo(2);
        assertThat(run.err()).contains("not a MAC address (six hex pairs with colons): 02:b0:00:00:01");
    }

    @Test
    void shouldNameAMissingInterfaceWhenTheSourceMacMustComeFromIt()
    {
        final CommandRun run = CommandRun.of("bench", "l2fwd", "--port", "afpacket", "--rx", "jvs-no-such0",
            "--dst-mac", "02:b0:00:00:01:02");

        assertThat(run.status()).isEqualTo(2);
        assertThat(run.err()).contains("no interface jvs-no-such0 here");
    }
}
