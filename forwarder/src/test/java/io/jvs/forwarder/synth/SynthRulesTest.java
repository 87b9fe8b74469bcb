package io.jvs.forwarder.synth;

import io.jvs.core.net.IpAddress;
import io.jvs.core.net.Protocol;
import io.jvs.core.rules.RulesFile;
import io.jvs.core.sched.SchedulerFlags;
import io.jvs.core.sched.SchedulerSettings;
import io.jvs.core.service.ForwardMethod;
import io.jvs.core.service.RealServer;
import io.jvs.core.service.ServiceKey;
import io.jvs.core.service.ServiceTable;
import io.jvs.core.service.VirtualService;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class SynthRulesTest
{
    @TempDir
    Path directory;

    @ParameterizedTest
    @CsvSource({
        "1, 1, wlc, NAT",
        "4, 4, rr, DR",
        "13, 7, mh, TUN",
        "300, 250, wrr, NAT"})
    void shouldWriteRulesThatCoreParsesAndApplies(final int services, final int servers, final String scheduler,
        final ForwardMethod method) throws Exception
    {
        final SynthSettings settings = SynthSettings.builder().services(services).serversPerService(servers)
            .scheduler(scheduler).method(method).build();

        final ServiceTable table = table(settings);

        assertThat(table.services()).hasSize(2 * services + 2);
        for (final VirtualService service : table.services())
        {
            assertThat(service.settings().scheduler()).isEqualTo(scheduler);
            assertThat(service.servers()).hasSize(servers);
            for (final RealServer server : service.servers())
            {
                assertThat(server.forwardMethod()).isEqualTo(method);
                assertThat(server.address().isV6()).isEqualTo(service.key().v6());
                assertThat(server.port()).isEqualTo(service.key().port());
            }
        }
        final VirtualService last = table.find(ServiceKey.of(Protocol.TCP, AddressPlan.vip(services - 1, true), 80));
        assertThat(last).isNotNull();
        assertThat(table.find(ServiceKey.of(Protocol.UDP, IpAddress.parse("10.0.0.100"), 53))).isNotNull();
        assertThat(table.find(ServiceKey.of(Protocol.UDP, IpAddress.parse("fd00:6a76::100"), 53))).isNotNull();
    }

    @Test
    void shouldWeighServersInTheDefaultPatternOrAsGiven() throws Exception
    {
        final SynthSettings pattern = SynthSettings.builder().serversPerService(6).build();
        final SynthSettings given = SynthSettings.builder().serversPerService(5).weights(List.of(10, 0, 7)).build();

        assertThat(TraceSynthesizer.rules(pattern)).contains(
            "-A -t 10.0.0.100:80 -s wlc\n" +
            "-a -t 10.0.0.100:80 -r 192.168.10.1:80 -m -w 1\n" +
            "-a -t 10.0.0.100:80 -r 192.168.10.2:80 -m -w 2\n");
        final VirtualService service = table(given).find(ServiceKey.of(Protocol.TCP, IpAddress.parse("fd00:6a76::101"),
            80));
        assertThat(service.servers()).extracting(server -> server.address() + " " + server.weight())
            .containsExactlyInAnyOrder("fd00:5e::1:1 10", "fd00:5e::1:2 0", "fd00:5e::1:3 7", "fd00:5e::1:4 10",
                "fd00:5e::1:5 0");
    }

    @Test
    void shouldHaveAServiceForEveryDestinationInTheTrace() throws Exception
    {
        final SynthSettings settings = SynthSettings.builder().services(5).packets(30_000).build();
        final Path file = directory.resolve("trace.pcap");
        TraceSynthesizer.synthesize(settings, file);
        final ServiceTable table = table(settings);

        int checked = 0;
        for (final TraceFrames.Frame frame : TraceFrames.read(file))
        {
            if (frame.verdict() != 0 || !(frame.protocol() == 6 || frame.protocol() == 17) || frame.fragment() == 2)
            {
                continue;
            }
            final IpAddress destination = frame.isV6() ?
                IpAddress.ofV6(frame.destinationHigh(), frame.destinationLow()) :
                IpAddress.ofV4((int)frame.destinationLow());
            final Protocol protocol = frame.protocol() == 6 ? Protocol.TCP : Protocol.UDP;
            assertThat(table.lookup(0, protocol, destination, frame.destinationPort()))
                .as("a service for %s %s:%d", protocol, destination, frame.destinationPort()).isNotNull();
            checked++;
        }
        assertThat(checked).isGreaterThan(25_000);
    }

    private static ServiceTable table(final SynthSettings settings) throws Exception
    {
        final ServiceTable table = new ServiceTable(SchedulerSettings.of(SchedulerFlags.NONE));
        final List<String> lines = TraceSynthesizer.rules(settings).lines().toList();
        RulesFile.apply("synth.rules", RulesFile.parse("synth.rules", lines), table);
        return table;
    }
}
