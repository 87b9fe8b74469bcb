package io.jvs.core.stats;

import org.junit.jupiter.api.Test;

import static io.jvs.core.stats.TrafficStatsDescriptor.CONNECTIONS;
import static io.jvs.core.stats.TrafficStatsDescriptor.FRAMES;
import static io.jvs.core.stats.TrafficStatsDescriptor.FRAME_BYTES;
import static io.jvs.core.stats.TrafficStatsDescriptor.IN_BYTES;
import static io.jvs.core.stats.TrafficStatsDescriptor.IN_PACKETS;
import static io.jvs.core.stats.TrafficStatsDescriptor.OUT_BYTES;
import static io.jvs.core.stats.TrafficStatsDescriptor.OUT_PACKETS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * A worker's traffic counters: each count lands in its own service's and server's slot and field only, and the
 * sums over workers add them up; the descriptor's names are the ones ipvsadm and IPVS's netlink use.
 */
class TrafficStatsTest
{
    @Test
    void shouldCountIntoTheGivenSlotsAndFieldsOnly()
    {
        final TrafficStats stats = new TrafficStats(4, 8);
        stats.connection(1, 5);
        stats.in(1, 5, 100);
        stats.in(1, 5, 60);
        stats.out(1, 5, 1500);
        stats.in(2, 6, 40);

        assertThat(stats.service(1, CONNECTIONS)).isEqualTo(1);
        assertThat(stats.service(1, IN_PACKETS)).isEqualTo(2);
        assertThat(stats.service(1, IN_BYTES)).isEqualTo(160);
        assertThat(stats.service(1, OUT_PACKETS)).isEqualTo(1);
        assertThat(stats.service(1, OUT_BYTES)).isEqualTo(1500);
        assertThat(stats.server(5, IN_BYTES)).isEqualTo(160);
        assertThat(stats.server(5, OUT_BYTES)).isEqualTo(1500);
        assertThat(stats.service(2, IN_PACKETS)).isEqualTo(1);
        assertThat(stats.server(6, CONNECTIONS)).isZero();
        for (int field = 0; field < TrafficStatsDescriptor.FIELDS; field++)
        {
            assertThat(stats.service(0, field)).isZero();
            assertThat(stats.service(3, field)).isZero();
            assertThat(stats.server(4, field)).isZero();
            assertThat(stats.server(7, field)).isZero();
        }
    }

    @Test
    void shouldCountAPacketInIpvssCountsItsForwardedFrameInJvssOfBothSlotsAndAServerFrameInTheServersOnly()
    {
        final TrafficStats stats = new TrafficStats(3, 4);
        stats.in(1, 2, 100);
        stats.framesForwarded(1, 2, 114);
        stats.in(1, 2, 46);
        stats.framesForwarded(1, 2, 60);
        stats.serverFrame(2, 1514);
        // A later fragment, or a packet whose frame did not leave.
        stats.in(1, 3, 1480);

        assertThat(stats.service(1, IN_PACKETS)).isEqualTo(3);
        assertThat(stats.service(1, IN_BYTES)).isEqualTo(100 + 46 + 1480);
        assertThat(stats.service(1, FRAMES)).as("only the frames that left").isEqualTo(2);
        assertThat(stats.service(1, FRAME_BYTES)).isEqualTo(114 + 60);
        assertThat(stats.server(2, IN_PACKETS)).isEqualTo(2);
        assertThat(stats.server(2, IN_BYTES)).isEqualTo(146);
        assertThat(stats.server(2, FRAMES)).isEqualTo(3);
        assertThat(stats.server(2, FRAME_BYTES)).isEqualTo(114 + 60 + 1514);
        assertThat(stats.server(2, OUT_PACKETS)).isZero();
        assertThat(stats.server(3, FRAMES)).isZero();
        assertThat(stats.server(3, IN_PACKETS)).isOne();
        assertThat(TrafficStatsDescriptor.name(FRAMES)).isEqualTo("frames");
        assertThat(TrafficStatsDescriptor.name(FRAME_BYTES)).isEqualTo("framebytes");
        assertThat(TrafficStatsDescriptor.offset(FRAME_BYTES) + Long.BYTES)
            .as("every field in the slot's one line").isLessThanOrEqualTo(TrafficStatsDescriptor.SLOT_LENGTH);
        assertThatExceptionOfType(IndexOutOfBoundsException.class).isThrownBy(() -> stats.framesForwarded(3, 0, 1));
        assertThatExceptionOfType(IndexOutOfBoundsException.class).isThrownBy(() -> stats.serverFrame(4, 1));
        assertThat(stats.service(0, FRAMES) + stats.server(0, FRAMES)).isZero();
    }

    @Test
    void shouldCountAReplyAsOutAndAServerFrameDo()
    {
        final TrafficStats replied = new TrafficStats(3, 4);
        final TrafficStats apart = new TrafficStats(3, 4);
        replied.serverReplied(1, 2, 1500, 1514);
        replied.serverReplied(1, 2, 40, 60);
        replied.serverReplied(2, 3, 576, 590);
        for (final int[] reply : new int[][] {{1, 2, 1500, 1514}, {1, 2, 40, 60}, {2, 3, 576, 590}})
        {
            apart.out(reply[0], reply[1], reply[2]);
            apart.serverFrame(reply[1], reply[3]);
        }

        for (int field = 0; field < TrafficStatsDescriptor.FIELDS; field++)
        {
            for (int slot = 0; slot < 3; slot++)
            {
                assertThat(replied.service(slot, field)).as("service %d, field %d", slot, field)
                    .isEqualTo(apart.service(slot, field));
            }
            for (int slot = 0; slot < 4; slot++)
            {
                assertThat(replied.server(slot, field)).as("server %d, field %d", slot, field)
                    .isEqualTo(apart.server(slot, field));
            }
        }
        assertThat(replied.server(2, OUT_BYTES)).isEqualTo(1540);
        assertThat(replied.server(2, FRAME_BYTES)).isEqualTo(1574);
        assertThat(replied.service(1, FRAMES)).as("a service's frames are its clients' only").isZero();
        assertThatExceptionOfType(IndexOutOfBoundsException.class).isThrownBy(() -> replied.serverReplied(3, 0, 1, 1));
        assertThatExceptionOfType(IndexOutOfBoundsException.class).isThrownBy(() -> replied.serverReplied(0, 4, 1, 1));
        assertThat(replied.service(0, OUT_PACKETS) + replied.server(0, OUT_PACKETS)).as("nothing written").isZero();
    }

    @Test
    void shouldRefuseASlotOutsideItsBuffersAndWriteNothing()
    {
        final TrafficStats stats = new TrafficStats(2, 3);
        assertThatExceptionOfType(IndexOutOfBoundsException.class).isThrownBy(() -> stats.in(2, 0, 100));
        assertThatExceptionOfType(IndexOutOfBoundsException.class).isThrownBy(() -> stats.out(0, 3, 100));
        assertThatExceptionOfType(IndexOutOfBoundsException.class).isThrownBy(() -> stats.connection(-1, 0));
        for (int field = 0; field < TrafficStatsDescriptor.FIELDS; field++)
        {
            for (int slot = 0; slot < 2; slot++)
            {
                assertThat(stats.service(slot, field)).isZero();
            }
            for (int slot = 0; slot < 3; slot++)
            {
                assertThat(stats.server(slot, field)).isZero();
            }
        }
        stats.in(1, 2, 100);
        assertThat(stats.service(1, IN_BYTES)).isEqualTo(100);
        assertThat(stats.server(2, IN_PACKETS)).isOne();
    }

    @Test
    void shouldSumOverWorkers()
    {
        final TrafficStats first = new TrafficStats(2, 2);
        final TrafficStats second = new TrafficStats(2, 2);
        first.in(0, 1, 100);
        second.in(0, 1, 50);
        second.out(0, 1, 10);
        final long[] sum = new long[TrafficStatsDescriptor.FIELDS];

        TrafficStats.sumService(new TrafficStats[] {first, second}, 0, sum);
        assertThat(sum).containsExactly(0, 2, 1, 150, 10);
        TrafficStats.sumServer(new TrafficStats[] {first, second}, 1, sum);
        assertThat(sum).containsExactly(0, 2, 1, 150, 10);
        TrafficStats.sumServer(new TrafficStats[] {first, second}, 0, sum);
        assertThat(sum).containsExactly(0, 0, 0, 0, 0);
    }

    @Test
    void shouldNameTheFieldsAsIpvsDoes()
    {
        assertThat(TrafficStatsDescriptor.name(CONNECTIONS)).isEqualTo("conns");
        assertThat(TrafficStatsDescriptor.name(IN_PACKETS)).isEqualTo("inpkts");
        assertThat(TrafficStatsDescriptor.name(OUT_PACKETS)).isEqualTo("outpkts");
        assertThat(TrafficStatsDescriptor.name(IN_BYTES)).isEqualTo("inbytes");
        assertThat(TrafficStatsDescriptor.name(OUT_BYTES)).isEqualTo("outbytes");
        assertThat(TrafficStatsDescriptor.offset(OUT_BYTES)).isEqualTo(32);
    }
}
