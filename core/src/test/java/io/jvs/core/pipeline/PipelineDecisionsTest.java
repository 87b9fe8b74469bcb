package io.jvs.core.pipeline;

import io.jvs.core.net.IpAddress;
import io.jvs.core.packet.DropReason;
import io.jvs.core.packet.ParsedBurst;
import io.jvs.core.pipeline.TestFrames.Segment;
import org.junit.jupiter.api.Test;

import static io.jvs.core.pipeline.TestFrames.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * What a pipeline tells the tools about its last burst (replay's decisions file): the server each frame
 * opened a connection to, why one could not, the service it was classified to and its headers as received;
 * and the worker indexes it accepts.
 */
class PipelineDecisionsTest
{
    private static final IpAddress CLIENT = IpAddress.parse("198.51.100.7");
    private static final IpAddress VIP = IpAddress.parse("10.0.0.100");
    private static final IpAddress EMPTY_VIP = IpAddress.parse("10.0.0.101");
    private static final long SERVER_MAC = 0x02_00_00_00_01_02L;

    private static PipelineFixture fixture()
    {
        return new PipelineFixture()
            .rules("-A -t 10.0.0.100:80 -s rr", "-a -t 10.0.0.100:80 -r 192.168.1.2:8080 -m",
                "-A -t 10.0.0.101:80 -s rr")
            .neighbour("192.168.1.2", SERVER_MAC)
            .start();
    }

    @Test
    void shouldTellWhichServerEachFrameOpenedAConnectionToOrWhyItCouldNot()
    {
        final PipelineFixture fixture = fixture();
        fixture.send(
            frame(JVS_MAC, ROUTER_MAC, CLIENT, VIP, 64, Segment.tcp(40000, 80, SYN, 0)),
            frame(JVS_MAC, ROUTER_MAC, CLIENT, EMPTY_VIP, 64, Segment.tcp(40001, 80, SYN, 0)),
            frame(JVS_MAC, ROUTER_MAC, CLIENT, VIP, 1, Segment.tcp(40002, 80, SYN, 0)),
            frame(JVS_MAC, ROUTER_MAC, CLIENT, IpAddress.parse("10.0.0.200"), 64, Segment.tcp(40003, 80, SYN, 0)));
        final Pipeline pipeline = fixture.pipeline;
        final int server = pipeline.openedServer(0);
        assertThat(server).isPositive();
        assertThat(fixture.publisher.current().servers[server].address()).isEqualTo(IpAddress.parse("192.168.1.2"));
        assertThat(pipeline.refusal(0)).isNull();
        assertThat(pipeline.openedServer(1)).isNegative();
        assertThat(pipeline.refusal(1)).isEqualTo(DropReason.NO_SERVER);
        assertThat(pipeline.openedServer(2)).isNegative();
        assertThat(pipeline.refusal(2)).isEqualTo(DropReason.TTL_EXPIRED);
        assertThat(pipeline.openedServer(3)).isEqualTo(Pipeline.OPENED_NONE);
        assertThat(pipeline.refusal(3)).isNull();
        assertThat(pipeline.serviceOf(0)).isNotEqualTo(ServiceClassifier.NONE);
        assertThat(pipeline.serviceOf(1)).isNotEqualTo(ServiceClassifier.NONE).isNotEqualTo(pipeline.serviceOf(0));
        assertThat(pipeline.serviceOf(3)).isEqualTo(ServiceClassifier.NONE);
    }

    @Test
    void shouldKeepTheHeadersAsReceived()
    {
        final PipelineFixture fixture = fixture();
        fixture.sendOne(frame(JVS_MAC, ROUTER_MAC, CLIENT, VIP, 64, Segment.tcp(40000, 80, SYN, 0)));
        final ParsedBurst parsed = fixture.pipeline.parsed();
        assertThat(parsed.kind(0)).isEqualTo(ParsedBurst.KIND_IPV4);
        assertThat(parsed.destinationV4(0)).isEqualTo(VIP.v4());
        assertThat(parsed.destinationPort(0)).isEqualTo(80);
        assertThat(parsed.ttl(0)).isEqualTo(64);
    }

    @Test
    void shouldSeeANewSnapshotOnceItIsPublished()
    {
        final PipelineFixture fixture = fixture();
        final DataPlane before = fixture.pipeline.currentPlane();
        assertThat(before).isSameAs(fixture.publisher.current());
        fixture.republish();
        assertThat(fixture.pipeline.currentPlane()).isSameAs(fixture.publisher.current()).isNotSameAs(before);
    }

    @Test
    void shouldRefuseAWorkerTheConfigurationOrTheEpochsWereNotMadeFor()
    {
        final PipelineFixture fixture = new PipelineFixture(2).rules("-A -t 10.0.0.100:80 -s rr");
        final DataPlanePublisher publisher = new DataPlanePublisher(fixture.plane());
        assertThat(new Pipeline(publisher, 1, 64, 64, 8, 8, 10)).isNotNull();
        assertThatIllegalArgumentException().isThrownBy(() -> new Pipeline(publisher, 2, 64, 64, 8, 8, 10))
            .withMessage("worker 2 of a configuration made for 2 workers");
        assertThatIllegalArgumentException().isThrownBy(() -> new Pipeline(publisher, -1, 64, 64, 8, 8, 10))
            .withMessage("worker -1 of a configuration made for 2 workers");
        assertThatIllegalArgumentException().isThrownBy(() -> new Pipeline(publisher, 1, 64, 64, 8, 8, 10,
                io.jvs.core.memory.OffHeapAllocator.DIRECT, new TemplateTable(16), new WorkerEpochs(1)))
            .withMessage("worker 1 of epochs for 1 workers");
        assertThat(new Pipeline(publisher, 1, 64, 64, 8, 8, 10, io.jvs.core.memory.OffHeapAllocator.DIRECT,
            new TemplateTable(16), new WorkerEpochs(2))).isNotNull();
    }
}
