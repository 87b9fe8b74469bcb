package io.jvs.forwarder.port;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A port's counter ids are a published format (status lines, the coming counters file): pinned here, so moving one
 * fails a test rather than someone's graphs; and each count lands at its id's offset.
 */
class PortCountersDescriptorTest
{
    @Test
    void shouldKeepEveryCountAtItsPublishedId()
    {
        final Map<Integer, String> expected = new LinkedHashMap<>();
        final String[] own = {"rx-frames", "rx-bytes", "tx-frames", "tx-bytes", "tx-ring-full", "tx-copied", "wakeups"};
        for (int id = 0; id < own.length; id++)
        {
            expected.put(id, own[id]);
        }
        expected.put(8, "kernel-rx-dropped");
        expected.put(9, "kernel-fill-empty");
        expected.put(10, "kernel-invalid");
        expected.put(11, "kernel-rx-ring-full");
        expected.put(16, "rx-too-long");
        expected.put(17, "rx-not-ethernet");
        expected.put(18, "rx-outgoing");
        expected.put(19, "tx-errors");
        final String[] packet = {"checksums-completed", "checksums-not-completed", "vlan-tags-restored", "truncated",
            "tx-too-long", "tx-kick-errors", "blocks-by-timeout", "blocks-returned", "kernel-rx-freezes",
            "kernel-rx-packets"};
        for (int i = 0; i < packet.length; i++)
        {
            expected.put(24 + i, packet[i]);
        }

        final Map<Integer, String> actual = new LinkedHashMap<>();
        for (int id = -1; id <= PortCountersDescriptor.IDS; id++)
        {
            final String name = PortCountersDescriptor.name(id);
            if (name != null)
            {
                actual.put(id, name);
            }
        }
        assertThat(actual).containsExactlyEntriesOf(expected);
        assertThat(PortCountersDescriptor.LENGTH % PortCountersDescriptor.LINE_LENGTH).isZero();
        assertThat(PortCountersDescriptor.LENGTH).isGreaterThanOrEqualTo(PortCountersDescriptor.IDS * Long.BYTES);
    }

    @Test
    void shouldShowEachCountUnderTheNameItsIdHas()
    {
        final PortCounters counters = new PortCounters();
        for (int id = 0; id < PortCountersDescriptor.IDS; id++)
        {
            counters.add(id, 1000 + id);
        }
        final Map<String, Long> shown = new LinkedHashMap<>();
        for (final String pair : counters.toString().split(" "))
        {
            final String[] nameAndValue = pair.split("=");
            assertThat(shown.put(nameAndValue[0], Long.parseLong(nameAndValue[1]))).as("shown once: %s", pair).isNull();
        }
        assertThat(shown).containsOnlyKeys("rx-frames", "tx-frames", "tx-ring-full", "tx-copied", "wakeups",
            "kernel-rx-dropped", "kernel-fill-empty", "kernel-invalid");
        shown.forEach((name, value) -> assertThat(PortCountersDescriptor.name((int)(value - 1000))).isEqualTo(name));
    }

    @Test
    void shouldCountAtEachIdsOffsetInTheBufferItIsGiven()
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[PortCountersDescriptor.LENGTH]);
        final PortCounters counters = new PortCounters(buffer);
        counters.add(PortCountersDescriptor.RX_FRAMES, 32);
        counters.add(PortCountersDescriptor.RX_FRAMES, 1);
        counters.add(PortCountersDescriptor.TX_BYTES, 1514);
        counters.setKernel(PortCountersDescriptor.KERNEL_FILL_EMPTY, 7);
        counters.addKernel(PortCountersDescriptor.KERNEL_RX_DROPPED, 3);
        counters.addKernel(PortCountersDescriptor.KERNEL_RX_DROPPED, 4);

        assertThat(buffer.getLong(PortCountersDescriptor.offset(PortCountersDescriptor.RX_FRAMES))).isEqualTo(33);
        assertThat(counters.rxFrames()).isEqualTo(33);
        assertThat(counters.txBytes()).isEqualTo(1514);
        assertThat(counters.kernelFillEmpty()).isEqualTo(7);
        assertThat(counters.kernelRxDropped()).isEqualTo(7);
        assertThat(counters.txFrames() + counters.rxBytes() + counters.kernelInvalid()).isZero();
        assertThat(counters.toString()).contains("rx-frames=33", "kernel-rx-dropped=7", "kernel-fill-empty=7");
        assertThatThrownBy(() -> new PortCounters(new UnsafeBuffer(new byte[PortCountersDescriptor.LENGTH - 8])))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("need");
    }
}
