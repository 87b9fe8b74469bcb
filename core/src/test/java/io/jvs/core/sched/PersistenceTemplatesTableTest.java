package io.jvs.core.sched;

import io.jvs.core.net.FlowTuple;
import io.jvs.core.net.IpAddress;
import io.jvs.core.net.Protocol;
import io.jvs.core.rules.RuleParser;
import io.jvs.core.service.PersistenceTemplates;
import io.jvs.core.service.RealServer;
import io.jvs.core.service.ServiceKey;
import io.jvs.core.service.ServiceTable;
import io.jvs.core.service.VirtualService;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The simulation's persistence templates kept in the forwarder's {@link io.jvs.core.pipeline.TemplateTable}:
 * the table grows instead of losing templates, and FTP's templates are shared with the port-0 service.
 */
class PersistenceTemplatesTableTest
{
    private final ServiceTable table = new ServiceTable(SchedulerSettings.of(SchedulerFlags.NONE));
    private final SchedulingContext context = new SchedulingContext(0, 1);
    private final FlowTuple flow = new FlowTuple();

    private void rules(final String... lines)
    {
        for (final String line : lines)
        {
            RuleParser.parse(line).applyTo(table);
        }
    }

    private RealServer open(final PersistenceTemplates templates, final VirtualService service, final IpAddress client,
        final int port)
    {
        flow.set(Protocol.TCP, client, 40000, service.key().address(), port);
        final PersistenceTemplates.Template template = templates.open(service, flow, 0,
            () -> service.schedule(flow, context));
        return template.server();
    }

    @Test
    void shouldKeepEveryTemplateWhenTheTableFills()
    {
        rules("-A -t 10.0.0.100:80 -s rr -p 360", "-a -t 10.0.0.100:80 -r 192.168.1.1:80 -m",
            "-a -t 10.0.0.100:80 -r 192.168.1.2:80 -m", "-a -t 10.0.0.100:80 -r 192.168.1.3:80 -m");
        final VirtualService service = table.find(ServiceKey.of(Protocol.TCP, IpAddress.parse("10.0.0.100"), 80));
        final PersistenceTemplates templates = new PersistenceTemplates(false);
        final Map<Integer, RealServer> placed = new HashMap<>();
        final int clients = 20_000;
        for (int client = 0; client < clients; client++)
        {
            placed.put(client, open(templates, service, IpAddress.ofV4(0x0B00_0000 + client), 80));
        }
        assertThat(templates.size()).isEqualTo(clients);
        for (int client = 0; client < clients; client++)
        {
            assertThat(open(templates, service, IpAddress.ofV4(0x0B00_0000 + client), 80)).isSameAs(placed.get(client));
        }
        long counted = 0;
        for (final RealServer server : service.servers())
        {
            counted += server.persistentConnections();
        }
        assertThat(counted).as("each template counted on its server once").isEqualTo(clients);
    }

    @Test
    void shouldShareTemplatesBetweenAnFtpServiceAndThePortZeroServiceOfItsAddress()
    {
        rules("-A -t 10.0.0.100:21 -s rr -p 360", "-a -t 10.0.0.100:21 -r 192.168.1.1:21 -m",
            "-A -t 10.0.0.100:0 -s rr -p 360", "-a -t 10.0.0.100:0 -r 192.168.1.2:0 -m",
            "-A -t 10.0.0.100:443 -s rr -p 360", "-a -t 10.0.0.100:443 -r 192.168.1.3:443 -m");
        final IpAddress vip = IpAddress.parse("10.0.0.100");
        final PersistenceTemplates templates = new PersistenceTemplates(false);
        final IpAddress client = IpAddress.parse("198.51.100.7");
        final RealServer control = open(templates, table.find(ServiceKey.of(Protocol.TCP, vip, 21)), client, 21);
        assertThat(control.address()).isEqualTo(IpAddress.parse("192.168.1.1"));
        assertThat(open(templates, table.find(ServiceKey.of(Protocol.TCP, vip, 0)), client, 30000))
            .as("the data connection follows the control connection").isSameAs(control);
        assertThat(open(templates, table.find(ServiceKey.of(Protocol.TCP, vip, 443)), client, 443).address())
            .as("another service keeps its own").isEqualTo(IpAddress.parse("192.168.1.3"));
        assertThat(templates.size()).isEqualTo(2);
    }
}
