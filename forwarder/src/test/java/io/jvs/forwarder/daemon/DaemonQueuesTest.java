package io.jvs.forwarder.daemon;

import io.jvs.core.rules.RuleException;
import io.jvs.forwarder.config.JvsConfig;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Worker q binds an AF_XDP socket to queue q of every AF_XDP device, and a frame the device steers to a queue
 * without a socket goes to the kernel (a reset from a VIP on lo, or nothing): the daemon starts only when every
 * receive queue of such a device has a worker and every worker a queue, and otherwise says which numbers to
 * change. AF_PACKET devices are shared by fanout and take any count.
 */
class DaemonQueuesTest
{
    private static JvsConfig parse(final String... lines) throws RuleException
    {
        return JvsConfig.parse("box.conf", List.of(lines), Path.of(""));
    }

    /** The decision the start makes, with the device queue counts given and the default workers for 8 CPUs. */
    private static String refusal(final Map<String, Integer> deviceQueues, final String... lines)
        throws RuleException
    {
        final JvsConfig config = parse(lines);
        final int workers = config.workerCount(8, deviceQueues::get);
        return Daemon.queueRefusal(config, workers, deviceQueues::get);
    }

    @Test
    void shouldServeEveryQueueOfTheDeviceWhenQueuesIsLeftOut() throws Exception
    {
        final JvsConfig config = parse("interface eth0");
        assertThat(config.workerCount(8, device -> 2)).as("a worker, so a socket, for each queue").isEqualTo(2);
        assertThat(refusal(Map.of("eth0", 2), "interface eth0")).isNull();
        assertThat(refusal(Map.of("eth0", 4), "interface eth0 queues 4", "workers 4")).isNull();
    }

    @Test
    void shouldRefuseFewerQueuesThanTheDeviceHasNamingBothAndTheFix() throws Exception
    {
        assertThat(refusal(Map.of("eth0", 4), "interface eth0 queues 2", "workers 2")).isEqualTo(
            "box.conf:1: interface eth0 has 4 receive queues but queues 2: frames it steers to queues 2-3 would " +
                "reach no socket and go to the kernel (write 'queues 4' or leave queues out, or give it 2 with " +
                "'ethtool -L eth0 combined 2' or 'rx 2')");
        assertThat(refusal(Map.of("eth0", 2), "interface eth0 queues 1")).contains("has 2 receive queues but " +
            "queues 1: frames it steers to queue 1 would reach no socket");
    }

    @Test
    void shouldRefuseMoreQueuesThanTheDeviceHas() throws Exception
    {
        assertThat(refusal(Map.of("eth0", 2), "interface eth0 queues 4", "workers 2")).isEqualTo(
            "box.conf:1: interface eth0 has 2 receive queues but queues 4: it has no queues 2-3 (write 'queues 2' " +
                "or leave queues out, or give it 4 with 'ethtool -L eth0 combined 4' or 'rx 4')");
    }

    @Test
    void shouldRefuseFewerWorkersThanQueuesAsNoWorkerWouldServeTheRest() throws Exception
    {
        assertThat(refusal(Map.of("eth0", 4), "interface eth0 queues 4", "workers 2")).isEqualTo(
            "box.conf:1: interface eth0 has 4 receive queues but 2 workers: with port afxdp worker q serves " +
                "queue q, so frames it steers to queues 2-3 would reach no socket and go to the kernel (set " +
                "'workers 4', or give it 2 with 'ethtool -L eth0 combined 2' or 'rx 2')");
        assertThat(refusal(Map.of("eth0", 2), "interface eth0", "workers 1")).as("the default queues too")
            .contains("has 2 receive queues but 1 worker: ").contains("frames it steers to queue 1 would");
        final JvsConfig config = parse("interface eth0");
        assertThat(Daemon.queueRefusal(config, config.workerCount(2, device -> 4), device -> 4))
            .as("workers capped at the CPUs").contains("has 4 receive queues but 2 workers: ");
    }

    @Test
    void shouldStillRefuseMoreWorkersThanQueues() throws Exception
    {
        assertThat(refusal(Map.of("eth0", 1), "interface eth0", "workers 2")).isEqualTo(
            "box.conf:1: interface eth0 has 1 receive queue but 2 workers: with port afxdp each worker owns a " +
                "queue of every interface (give it more queues with 'ethtool -L eth0 combined 2', set 'workers 1', " +
                "or use port afpacket)");
    }

    @Test
    void shouldCheckEveryAfXdpInterfaceAndNoAfPacketOne() throws Exception
    {
        assertThat(refusal(Map.of("eth0", 2, "eth1", 4), "interface eth0", "interface eth1", "workers 2"))
            .startsWith("box.conf:2: interface eth1 has 4 receive queues but 2 workers: ");
        assertThat(refusal(Map.of("eth0", 8), "interface eth0 port afpacket", "workers 2")).isNull();
        assertThat(refusal(Map.of("eth0", 1), "interface eth0 port afpacket queues 4")).isNull();
    }
}
