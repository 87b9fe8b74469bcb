package io.jvs.tools.demo;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class DaemonStatusTest
{
    @Test
    void shouldReadNameValueLinesUpToTheEmptyLine()
    {
        final Map<String, Long> status = DaemonStatus.parse("workers 1\nframes 1200\n" +
            "server.172.16.0.2:8080.connections 7\nserver.172.16.0.2:8080.weight 1\n\nlater 5\n");

        assertThat(status).containsExactly(Map.entry("workers", 1L), Map.entry("frames", 1200L),
            Map.entry("server.172.16.0.2:8080.connections", 7L), Map.entry("server.172.16.0.2:8080.weight", 1L));
        assertThat(DaemonStatus.get(status, "frames")).isEqualTo(1200);
        assertThat(DaemonStatus.get(status, "no.such.counter")).isZero();
    }

    @Test
    void shouldRefuseALineThatIsNoCounterNamingIt()
    {
        assertThatThrownBy(() -> DaemonStatus.parse("frames 12\nerror: no such request\n\n"))
            .isInstanceOf(IllegalStateException.class)
            .hasMessage("the daemon's status has a line that is not 'name value': error: no such request");
        assertThatThrownBy(() -> DaemonStatus.parse("frames\n\n"))
            .hasMessageEndingWith(": frames");
    }
}
