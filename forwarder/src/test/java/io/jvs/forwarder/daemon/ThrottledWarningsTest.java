package io.jvs.forwarder.daemon;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * One line an interval, and the next line says how many were left out: what keeps a control client that leaves
 * before its answer, again and again, from flooding the daemon's log.
 */
class ThrottledWarningsTest
{
    @Test
    void shouldLogOneWarningAnIntervalAndCountTheRest()
    {
        final ByteArrayOutputStream log = new ByteArrayOutputStream();
        DaemonLog.redirect(new PrintStream(log, true, StandardCharsets.UTF_8));
        try
        {
            final AtomicLong now = new AtomicLong(5_000);
            final ThrottledWarnings warnings = new ThrottledWarnings(1_000, now::get);
            warnings.warning("control client: Broken pipe");
            for (int i = 0; i < 1_000; i++)
            {
                now.addAndGet(0 == i % 2 ? 0 : 1);
                warnings.warning("control client: Broken pipe");
            }
            now.set(6_000);
            warnings.warning("control client: Connection reset by peer");
            now.set(7_000);
            warnings.warning("control client: Broken pipe");

            assertThat(log.toString(StandardCharsets.UTF_8).lines().toList()).hasSize(3).satisfiesExactly(
                line -> assertThat(line).endsWith(" warning control client: Broken pipe"),
                line -> assertThat(line).endsWith(
                    " warning control client: Connection reset by peer (and 1000 more like it not logged)"),
                line -> assertThat(line).endsWith(" warning control client: Broken pipe"));
        }
        finally
        {
            DaemonLog.redirect(System.err);
        }
    }
}
