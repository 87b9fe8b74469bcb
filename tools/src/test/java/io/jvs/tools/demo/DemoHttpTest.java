package io.jvs.tools.demo;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The demo's HTTP server and client as the demo runs them (child JVMs in a namespace, through
 * {@link DemoProcess}), without jvs between them: the client in the server's namespace. Root only.
 */
class DemoHttpTest
{
    @TempDir
    Path directory;

    @Test
    void shouldCountTheAnswersByServerNameAndStopWhenItsInputCloses()
    {
        final DemoNetwork network = new DemoNetwork(ProcessHandle.current().pid());
        DemoProcess server = null;
        DemoProcess client = null;
        try
        {
            final String namespace = network.namespace("http");
            server = DemoProcess.start("rs9", namespace, List.of("-XX:TieredStopAtLevel=1"),
                DemoHttpServer.class.getName(), List.of("rs9", "127.0.0.1", "8080"), directory.resolve("rs9.log"));
            client = DemoProcess.start("client", namespace, List.of(), DemoHttpClient.class.getName(),
                List.of("http://127.0.0.1:8080/", "1", "2", "5"), directory.resolve("client.log"));
            final long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            assertThat(server.awaitLine(line -> line.startsWith(DemoHttpServer.READY), deadline, "listening"))
                .isEqualTo("listening 127.0.0.1:8080");
            client.awaitLine(DemoHttpClient.READY::equals, deadline, "ready");

            client.send(DemoHttpClient.GO);
            client.awaitLine("result end"::equals, deadline, "done");
            final DemoClientResult result = DemoClientResult.parse(client.lines());

            assertThat(client.awaitExit(Duration.ofSeconds(10))).isZero();
            assertThat(result.answered()).containsOnlyKeys("rs9");
            assertThat(result.failed()).isZero();
            assertThat(result.connections()).isGreaterThanOrEqualTo(2);
            assertThat(result.requests()).isGreaterThanOrEqualTo(result.connections());
            assertThat(result.elapsedNanos()).isBetween(1_000_000_000L, 5_000_000_000L);
            final long[] latency = result.latencyNanos();
            assertThat(latency[0]).isPositive().isLessThanOrEqualTo(latency[1]);
            assertThat(latency[1]).isLessThanOrEqualTo(latency[2]);
            assertThat(latency[2]).isLessThanOrEqualTo(latency[3]);
            assertThat(directory.resolve("client.log")).content().contains("result answered rs9 ");

            server.closeInput();
            assertThat(server.awaitExit(Duration.ofSeconds(10))).isZero();
        }
        finally
        {
            if (client != null)
            {
                client.close();
            }
            if (server != null)
            {
                server.close();
            }
            network.close();
        }
    }
}
