package io.jvs.tools.demo;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The demo's namespaces: named after the demo's process, removed by close() and, once that process is gone, by
 * the next demo. Root only (ip netns), as CI runs.
 */
class DemoNetworkTest
{
    @ParameterizedTest
    @CsvSource(nullValues = "none", value = {
        "jvsdemo1234-client, 1234",
        "jvsdemo7-rs3, 7",
        "jvsdemo-client, none",
        "jvsdemo12client, none",
        "jdnat123x1lb, none",
        "jvsdemo99999999999999999999-jvs, none"})
    void shouldTellTheProcessADemoNamespaceBelongsTo(final String name, final Long pid)
    {
        assertThat(DemoNetwork.owner(name)).isEqualTo(Optional.ofNullable(pid));
    }

    @Test
    void shouldMakeNamespacesWithThePidInTheirNameAndRemoveThemAllOnClose()
    {
        final DemoNetwork network = new DemoNetwork(ProcessHandle.current().pid());
        try
        {
            final String a = network.namespace("ta");
            final String b = network.namespace("tb");

            assertThat(a).isEqualTo("jvsdemo" + ProcessHandle.current().pid() + "-ta");
            assertThat(DemoNetwork.list()).contains(a, b);
            assertThat(DemoNetwork.exec(a, "ip", "-o", "link", "show", "dev", "lo")).contains("UP");
        }
        finally
        {
            network.close();
        }
        assertThat(DemoNetwork.list()).noneMatch(name -> name.startsWith(network.prefix()));
        network.close();
        assertThatThrownBy(() -> network.namespace("tc")).hasMessage("interrupted");
        assertThat(DemoNetwork.list()).noneMatch(name -> name.startsWith(network.prefix()));
    }

    @Test
    void shouldRemoveTheNamespacesOfADemoThatIsGoneWithTheProcessesInThem() throws Exception
    {
        final Process gone = new ProcessBuilder("true").start();
        gone.waitFor();
        final DemoNetwork stale = new DemoNetwork(gone.pid());
        final DemoNetwork live = new DemoNetwork(ProcessHandle.current().pid());
        Process inside = null;
        try
        {
            final String left = stale.namespace("left");
            final String mine = live.namespace("mine");
            inside = new ProcessBuilder("ip", "netns", "exec", left, "sleep", "60").start();
            final long pid = inside.pid();
            final long deadline = System.nanoTime() + 5_000_000_000L;
            while (!DemoNetwork.run("ip", "netns", "pids", left).contains(Long.toString(pid)) &&
                System.nanoTime() < deadline)
            {
                Thread.sleep(10);
            }

            final List<String> removed = DemoNetwork.removeStale();

            assertThat(removed).contains(left).doesNotContain(mine);
            assertThat(DemoNetwork.list()).doesNotContain(left).contains(mine);
            assertThat(inside.waitFor(5, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
        }
        finally
        {
            if (inside != null)
            {
                inside.destroyForcibly();
            }
            stale.close();
            live.close();
        }
    }

    @Test
    void shouldFailWithIpsMessageWhenABatchFails()
    {
        final DemoNetwork network = new DemoNetwork(ProcessHandle.current().pid());
        try
        {
            final String a = network.namespace("tf");

            assertThatThrownBy(() -> DemoNetwork.ip(a, List.of("link set dev lo up", "link set dev nosuch0 up")))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageStartingWith("ip -batch in " + a + " failed: ")
                .hasMessageContaining("nosuch0");
        }
        finally
        {
            network.close();
        }
    }
}
