package io.jvs.forwarder.port.packet;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import io.jvs.nativebindings.packet.AfPacket;
import io.jvs.nativebindings.packet.Tpacket2Hdr;
import io.jvs.nativebindings.packet.Tpacket3Hdr;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * TX slots in plain memory, V2 and V3: where the frame and its length go, the status published, a busy slot
 * under the cursor reported as a full ring (and not skipped), frames too long for a slot refused; with a linear
 * ring (PACKET_VNET_HDR) each frame follows a virtio_net_hdr whose hdr_len is the frame's length and whose other
 * fields are zero, and the slot's length counts the header.
 */
class AfPacketTransmitRingTest
{
    private static final int SLOT = 256;
    private static final int SLOTS = 4;

    @ParameterizedTest(name = "TPACKET_V{0}, linear {1}")
    @CsvSource({"2, false", "3, false", "2, true", "3, true"})
    void shouldFillSlotsInOrderAndStopAtABusyOne(final int versionNumber, final boolean linear)
    {
        final int version = versionNumber - 1;
        final boolean v3 = version == AfPacket.TPACKET_V3;
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment ring = arena.allocate(SLOT * SLOTS, 64);
            ring.fill((byte)0x77);
            for (int i = 0; i < SLOTS; i++)
            {
                ring.set(JAVA_INT, (long)i * SLOT + (v3 ? Tpacket3Hdr.STATUS_OFFSET : Tpacket2Hdr.STATUS_OFFSET),
                    AfPacket.TP_STATUS_AVAILABLE);
            }
            final TransmitRing transmitRing = new TransmitRing(ring.address(), version, SLOT, SLOTS, linear);
            final MemorySegment frames = arena.allocate(SLOT * 2);
            final int headerOffset = v3 ? 48 : 32;
            final int dataOffset = headerOffset + (linear ? 10 : 0);
            assertThat(transmitRing.frameCapacity()).isEqualTo(SLOT - dataOffset);

            for (int i = 0; i < SLOTS; i++)
            {
                final byte[] frame = TestPackets.experimental(i, 60 + i);
                MemorySegment.copy(frame, 0, frames, JAVA_BYTE, 0, frame.length);
                assertThat(transmitRing.offer(frames.address(), frame.length)).isEqualTo(TransmitRing.QUEUED);

                final MemorySegment slot = ring.asSlice((long)i * SLOT, SLOT);
                assertThat(transmitRing.status(i)).isEqualTo(AfPacket.TP_STATUS_SEND_REQUEST);
                assertThat(transmitRing.frameAddress(i)).isEqualTo(slot.address() + dataOffset);
                assertThat(slot.asSlice(dataOffset, frame.length).toArray(JAVA_BYTE)).isEqualTo(frame);
                assertThat(slot.get(JAVA_INT, v3 ? Tpacket3Hdr.LEN_OFFSET : Tpacket2Hdr.LEN_OFFSET))
                    .isEqualTo(frame.length + (linear ? 10 : 0));
                if (linear)
                {
                    assertThat(slot.get(JAVA_BYTE, headerOffset)).as("flags").isZero();
                    assertThat(slot.get(JAVA_BYTE, headerOffset + 1)).as("gso_type").isZero();
                    assertThat(slot.get(JAVA_SHORT, headerOffset + 2)).as("hdr_len").isEqualTo((short)frame.length);
                    assertThat(slot.asSlice(headerOffset + 4, 6).toArray(JAVA_BYTE)).as("gso_size, csum_start, csum_offset")
                        .containsOnly(0);
                }
                if (v3)
                {
                    assertThat(slot.get(JAVA_INT, Tpacket3Hdr.NEXT_OFFSET_OFFSET)).isZero();
                }
            }

            assertThat(transmitRing.offer(frames.address(), 60)).isEqualTo(TransmitRing.RING_FULL);
            // The kernel is done with slot 1 before slot 0: still full, the cursor waits at slot 0.
            ring.set(JAVA_INT, SLOT + (v3 ? Tpacket3Hdr.STATUS_OFFSET : Tpacket2Hdr.STATUS_OFFSET), 0);
            assertThat(transmitRing.offer(frames.address(), 60)).isEqualTo(TransmitRing.RING_FULL);
            ring.set(JAVA_INT, v3 ? Tpacket3Hdr.STATUS_OFFSET : Tpacket2Hdr.STATUS_OFFSET, 0);
            assertThat(transmitRing.offer(frames.address(), 60)).isEqualTo(TransmitRing.QUEUED);
            assertThat(transmitRing.offer(frames.address(), 60)).isEqualTo(TransmitRing.QUEUED);
            assertThat(transmitRing.status(1)).isEqualTo(AfPacket.TP_STATUS_SEND_REQUEST);

            assertThat(transmitRing.offer(frames.address(), SLOT - dataOffset + 1)).isEqualTo(TransmitRing.TOO_LONG);
        }
    }
}
