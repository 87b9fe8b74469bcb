package io.jvs.core.pipeline;

import io.jvs.core.packet.DropReason;
import io.jvs.core.packet.Verdict;
import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The worker counters' ids are a published format (a counters file or control client names a count by its id), so
 * they are pinned here: moving a count or a drop reason must fail this test, not shift someone's graphs.
 */
class WorkerCountersDescriptorTest
{
    @Test
    void shouldKeepEveryCountAtItsPublishedId()
    {
        final Map<Integer, String> expected = new LinkedHashMap<>();
        final String[] names = {"frames", "transmitted", "passed", "dropped", "fast-path", "connections",
            "connections-ended", "fragments-followed", "icmp-sent", "icmp-rate-limited", "icmp-echo-answered"};
        for (int id = 0; id < names.length; id++)
        {
            expected.put(id, names[id]);
        }
        final String[] reasons = {"truncated", "bad-ihl", "bad-ip-version", "bad-ip-len", "ip-options",
            "bad-ext-header", "bad-l4-header", "fragment", "fragment-orphan", "ttl-expired", "no-server",
            "conn-table-full", "server-removed", "no-neighbour", "mtu-exceeded", "no-service", "icmp-unmatched",
            "no-room"};
        for (int r = 0; r < reasons.length; r++)
        {
            expected.put(16 + r, "drop." + reasons[r]);
        }

        final Map<Integer, String> actual = new LinkedHashMap<>();
        for (int id = 0; id < WorkerCountersDescriptor.ids(); id++)
        {
            final String name = WorkerCountersDescriptor.name(id);
            if (name != null)
            {
                actual.put(id, name);
            }
        }
        assertThat(actual).containsExactlyEntriesOf(expected);
        assertThat(WorkerCountersDescriptor.name(-1)).isNull();
        assertThat(WorkerCountersDescriptor.name(WorkerCountersDescriptor.ids())).isNull();
        // A verdict's kind is its count's id: the writer indexes by kind without a table.
        assertThat(WorkerCountersDescriptor.TRANSMITTED).isEqualTo(Verdict.TRANSMIT);
        assertThat(WorkerCountersDescriptor.PASSED).isEqualTo(Verdict.PASS);
        assertThat(WorkerCountersDescriptor.DROPPED).isEqualTo(Verdict.DROP);
    }

    @Test
    void shouldGiveEveryDropReasonItsOwnStableNumber()
    {
        final Set<Integer> ids = new HashSet<>();
        for (final DropReason reason : DropReason.values())
        {
            assertThat(ids.add(reason.id())).as("%s's id is its own", reason).isTrue();
            assertThat(DropReason.of(reason.id())).isSameAs(reason);
            assertThat(Verdict.reason(Verdict.drop(reason))).isEqualTo(reason.id());
        }
        assertThat(DropReason.count()).isEqualTo(DropReason.values().length);
        assertThat(DropReason.of(-1)).isNull();
        assertThat(DropReason.of(DropReason.count())).isNull();
        assertThat(DropReason.NO_NEIGHBOUR.id()).isEqualTo(13);
        assertThat(DropReason.NO_ROOM.id()).isEqualTo(17);
    }

    @Test
    void shouldLayTheBufferOutInWholeLinesWithTheHotCountsInTheFirst()
    {
        assertThat(WorkerCountersDescriptor.length() % WorkerCountersDescriptor.LINE_LENGTH).isZero();
        assertThat(WorkerCountersDescriptor.length())
            .isGreaterThanOrEqualTo(WorkerCountersDescriptor.offset(WorkerCountersDescriptor.ids()));
        for (final int perPacket : new int[] {WorkerCountersDescriptor.FRAMES, WorkerCountersDescriptor.TRANSMITTED,
            WorkerCountersDescriptor.PASSED, WorkerCountersDescriptor.DROPPED, WorkerCountersDescriptor.FAST_PATH})
        {
            assertThat(WorkerCountersDescriptor.offset(perPacket)).isLessThan(WorkerCountersDescriptor.LINE_LENGTH);
        }
    }

    @Test
    void shouldCountIntoTheBufferItIsGivenAtTheDescriptorsOffsets()
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(BufferUtil.allocateDirectAligned(
            WorkerCountersDescriptor.length(), WorkerCountersDescriptor.LINE_LENGTH));
        final WorkerCounters counters = new WorkerCounters(buffer);
        counters.framesReceived(3);
        counters.verdict(Verdict.transmit(1));
        counters.verdict(Verdict.pass());
        counters.verdict(Verdict.drop(DropReason.NO_NEIGHBOUR));
        counters.icmpSent(DropReason.TTL_EXPIRED);

        assertThat(buffer.getLong(WorkerCountersDescriptor.offset(WorkerCountersDescriptor.FRAMES))).isEqualTo(3);
        assertThat(buffer.getLong(WorkerCountersDescriptor.offset(WorkerCountersDescriptor.TRANSMITTED))).isEqualTo(1);
        assertThat(buffer.getLong(WorkerCountersDescriptor.offset(WorkerCountersDescriptor.PASSED))).isEqualTo(1);
        assertThat(buffer.getLong(WorkerCountersDescriptor.offset(WorkerCountersDescriptor.DROPPED))).isEqualTo(1);
        assertThat(buffer.getLong(WorkerCountersDescriptor.offset(
            WorkerCountersDescriptor.dropReason(DropReason.NO_NEIGHBOUR)))).isEqualTo(1);
        // An answered drop counts its reason but leaves as a transmit: the verdict counts are the caller's.
        assertThat(counters.icmpSent()).isEqualTo(1);
        assertThat(counters.dropped(DropReason.TTL_EXPIRED)).isEqualTo(1);
        assertThat(buffer.getLong(WorkerCountersDescriptor.offset(WorkerCountersDescriptor.ICMP_SENT))).isEqualTo(1);
    }

    @Test
    void shouldRefuseAVerdictWhoseReasonNoDropReasonHasWithoutWritingAnything()
    {
        final WorkerCounters counters = new WorkerCounters();
        final int noSuchReason = Verdict.DROP | (DropReason.count() << 16);
        assertThatThrownBy(() -> counters.verdict(noSuchReason)).isInstanceOf(IndexOutOfBoundsException.class);
        for (int id = 0; id < WorkerCountersDescriptor.length() / Long.BYTES; id++)
        {
            assertThat(counters.get(id)).as("id %d", id).isZero();
        }
    }

    @Test
    void shouldRefuseABufferTooShortOrOffALine()
    {
        assertThatThrownBy(() -> new WorkerCounters(new UnsafeBuffer(BufferUtil.allocateDirectAligned(
            WorkerCountersDescriptor.length() - WorkerCountersDescriptor.LINE_LENGTH, 64))))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("need");
        final UnsafeBuffer aligned = new UnsafeBuffer(BufferUtil.allocateDirectAligned(
            WorkerCountersDescriptor.length() + WorkerCountersDescriptor.LINE_LENGTH, 64));
        assertThatThrownBy(() -> new WorkerCounters(new UnsafeBuffer(aligned, 8, WorkerCountersDescriptor.length())))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("cache line");
    }
}
