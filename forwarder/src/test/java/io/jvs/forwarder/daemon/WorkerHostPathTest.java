package io.jvs.forwarder.daemon;

import io.jvs.core.pipeline.DataPlaneSettings;
import io.jvs.core.packet.L4Headers;
import io.jvs.forwarder.port.memory.FrameTemplates;
import io.jvs.forwarder.port.memory.MemoryPort;
import io.jvs.forwarder.port.memory.TransmitObserver;
import io.jvs.nativebindings.Syscalls;
import io.jvs.nativebindings.packet.AfPacket;
import io.jvs.nativebindings.testing.RawPacketSocket;
import io.jvs.nativebindings.testing.TestNetwork;
import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Frames the pipeline passes to the host reach it through the port's real TAP (in a namespace of the test's
 * own, read back with an AF_PACKET socket on the device): unchanged, counted, only where the port's policy
 * says the host missed them and only on a port that has a TAP. Writing them allocates nothing. Needs root.
 * <p>
 * A real device rather than a stand-in: HostTap is final and its write is one system call, so the test checks
 * what the kernel receives with no seam added to the class.
 */
class WorkerHostPathTest
{
    private static final Duration FRAME_WAIT = Duration.ofSeconds(2);

    @Test
    void shouldWritePassedFramesToTheTapWhenTheHostMissedThem() throws Exception
    {
        try (TestNetwork network = TestNetwork.create("whost"); WorkerFarm farm = new WorkerFarm(2, 0))
        {
            final String ns = network.namespace("h");
            final HostTap tap = farm.own(TestNetwork.callIn(ns, () -> HostTap.open(Syscalls.create(),
                new Syscalls[] {Syscalls.create(), Syscalls.create()}, "jvs0", HostTapTest.mac(WorkerFarm.PORT0_MAC))));
            try (RawPacketSocket sink = RawPacketSocket.openIncoming(ns, "jvs0", AfPacket.ETH_P_IP))
            {
                // A TCP segment to the VIP of no connection, a datagram to no service: both the host's to answer.
                final byte[] stray = farm.toVip(3, L4Headers.TCP_ACK);
                final byte[] unmatched = farm.udpToNoService(4, WorkerFarm.client(200), 9999);
                final byte[] syn = farm.toVip(5, L4Headers.TCP_SYN);
                final byte[] fromNowhere = farm.tcp(WorkerFarm.PORT1_MAC, WorkerFarm.SERVER_MAC_BASE + 9,
                    0xC0A8_0109, 8080, WorkerFarm.client(1), 4444, L4Headers.TCP_ACK);
                final WorkerTest.Sent toServers = new WorkerTest.Sent();
                final MemoryPort[] ports = farm.ports(new FrameTemplates(3, stray, unmatched, syn),
                    new FrameTemplates(1, fromNowhere), TransmitObserver.NONE, toServers);
                final Worker worker = farm.worker(1, ports, new boolean[2], WorkerFarm::ownerByParity,
                    new HostTap[] {tap, null}, WorkerFarm.policies(2, HostPassPolicy.ALWAYS));

                assertThat(worker.doWork()).isEqualTo(4);

                assertThat(worker.pipeline().counters().passed()).isEqualTo(3);
                assertThat(sink.receive(FRAME_WAIT)).as("first passed frame, unchanged").isEqualTo(stray);
                assertThat(sink.receive(FRAME_WAIT)).as("second passed frame, unchanged").isEqualTo(unmatched);
                // The SYN went to a server; port 1's stray reply has no TAP to go to.
                assertThat(sink.receive(Duration.ofMillis(200))).isNull();
                assertThat(toServers.frames).hasSize(1);
                assertThat(farm.counters.get(1, DaemonCounters.HOST_PASSED)).isEqualTo(2);
                assertThat(farm.counters.get(1, DaemonCounters.HOST_REFUSED)).isZero();
                // Worker 1 wrote on queue 1.
                assertThat(tap.written()).isEqualTo(2);
            }
        }
    }

    @Test
    void shouldLeaveToTheHostWhatItAlreadySaw() throws Exception
    {
        try (TestNetwork network = TestNetwork.create("wseen"); WorkerFarm farm = new WorkerFarm(1, 0))
        {
            final String ns = network.namespace("h");
            final HostTap tap = farm.own(TestNetwork.callIn(ns, () -> HostTap.open(Syscalls.create(),
                new Syscalls[] {Syscalls.create()}, "jvs0", HostTapTest.mac(WorkerFarm.PORT0_MAC))));
            try (RawPacketSocket sink = RawPacketSocket.openIncoming(ns, "jvs0", AfPacket.ETH_P_IP))
            {
                final MemoryPort[] ports = farm.ports(new FrameTemplates(2, farm.toVip(3, L4Headers.TCP_ACK)), null,
                    TransmitObserver.NONE, TransmitObserver.NONE);
                // An AF_PACKET port that steals nothing: the host processed the original.
                final Worker worker = farm.worker(0, ports, new boolean[2], WorkerFarm::ownerByParity,
                    new HostTap[] {tap, null}, WorkerFarm.policies(2, HostPassPolicy.NEVER));

                assertThat(worker.doWork()).isEqualTo(2);

                assertThat(worker.pipeline().counters().passed()).isEqualTo(2);
                assertThat(sink.receive(Duration.ofMillis(300))).isNull();
                assertThat(farm.counters.get(0, DaemonCounters.HOST_PASSED)).isZero();
                assertThat(tap.written()).isZero();
            }
        }
    }

    @Test
    void shouldAllocateNothingWritingToTheHost() throws Exception
    {
        final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();
        try (TestNetwork network = TestNetwork.create("wtapal");
            WorkerFarm farm = new WorkerFarm(1, 0, DataPlaneSettings.defaults()))
        {
            final String ns = network.namespace("h");
            final HostTap tap = farm.own(TestNetwork.callIn(ns, () -> HostTap.open(Syscalls.create(),
                new Syscalls[] {Syscalls.create()}, "jvs0", HostTapTest.mac(WorkerFarm.PORT0_MAC))));
            final MemoryPort[] ports = farm.ports(FrameTemplates.repeating(farm.toVip(3, L4Headers.TCP_ACK),
                farm.udpToNoService(4, WorkerFarm.client(200), 9999)), null, TransmitObserver.NONE,
                TransmitObserver.NONE);
            final Worker worker = farm.worker(0, ports, new boolean[2], WorkerFarm::ownerByParity,
                new HostTap[] {tap, null}, WorkerFarm.policies(2, HostPassPolicy.ALWAYS));
            final int bursts = 10_000;
            run(worker, 3 * bursts);
            long fewestBytes = Long.MAX_VALUE;
            for (int window = 0; window < 3; window++)
            {
                final long before = threads.getCurrentThreadAllocatedBytes();
                run(worker, bursts);
                fewestBytes = Math.min(fewestBytes, threads.getCurrentThreadAllocatedBytes() - before);
            }
            final long passed = farm.counters.get(0, DaemonCounters.HOST_PASSED) +
                farm.counters.get(0, DaemonCounters.HOST_REFUSED);
            assertThat(passed).isEqualTo(6L * bursts * 32);
            assertThat(worker.pipeline().counters().passed()).isEqualTo(passed);
            // 10,000 bursts: even 8 bytes per burst would come to 80 KB.
            assertThat(fewestBytes).as("bytes allocated in the quietest window").isLessThan(8 * 1024);
        }
    }

    private static void run(final Worker worker, final int bursts)
    {
        for (int i = 0; i < bursts; i++)
        {
            worker.doWork();
        }
    }
}
