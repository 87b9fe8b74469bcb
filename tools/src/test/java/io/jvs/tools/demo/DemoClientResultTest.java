package io.jvs.tools.demo;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class DemoClientResultTest
{
    private static final DemoClientResult RESULT = new DemoClientResult(Map.of("rs2", 20L, "rs1", 10L), 2,
        "HttpTimeoutException: request timed out", 3, 5_000_000_000L, new long[] {400_000, 900_000, 2_000_000,
            9_000_000});

    @Test
    void shouldReadBackWhatItPrintsAmongOtherLines()
    {
        final List<String> output = new ArrayList<>(List.of("ready", "WARNING: something the JVM says"));
        output.addAll(RESULT.lines());

        final DemoClientResult read = DemoClientResult.parse(output);

        assertThat(read.answered()).isEqualTo(Map.of("rs1", 10L, "rs2", 20L));
        assertThat(read.requests()).isEqualTo(30);
        assertThat(read.failed()).isEqualTo(2);
        assertThat(read.firstError()).isEqualTo("HttpTimeoutException: request timed out");
        assertThat(read.connections()).isEqualTo(3);
        assertThat(read.elapsedNanos()).isEqualTo(5_000_000_000L);
        assertThat(read.latencyNanos()).containsExactly(400_000, 900_000, 2_000_000, 9_000_000);
    }

    @Test
    void shouldPrintOneLineEachEndingWithEnd()
    {
        assertThat(RESULT.lines()).containsExactly(
            "result answered rs1 10",
            "result answered rs2 20",
            "result failed 2",
            "result error HttpTimeoutException: request timed out",
            "result connections 3",
            "result elapsed-ns 5000000000",
            "result latency-ns 400000 900000 2000000 9000000",
            "result end");
    }

    @Test
    void shouldRefuseAResultWithoutItsEnd()
    {
        final List<String> cut = RESULT.lines().subList(0, RESULT.lines().size() - 1);

        assertThatThrownBy(() -> DemoClientResult.parse(cut)).isInstanceOf(IllegalArgumentException.class)
            .hasMessage("the client's result is incomplete");
    }

    @Test
    void shouldRefuseAMalformedLineNamingIt()
    {
        assertThatThrownBy(() -> DemoClientResult.parse(List.of("result answered rs1 many", "result end")))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessage("the client's result has a malformed line: result answered rs1 many");
    }
}
