package io.jvs.core.packet;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.SplittableRandom;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Frames reads and writes headers' fields in network order, at any alignment, whatever this machine's own order:
 * checked against a big-endian ByteBuffer over the same memory.
 */
class FramesByteOrderTest
{
    private static final int LENGTH = 64;

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 0x6A76_7300L})
    void shouldReadWhatABigEndianBufferWroteAtEveryOffset(final long seed)
    {
        final ByteBuffer memory = ByteBuffer.allocateDirect(LENGTH).order(ByteOrder.BIG_ENDIAN);
        final long base = Frames.addressOf(memory);
        final SplittableRandom random = new SplittableRandom(seed);
        for (int offset = 0; offset + Long.BYTES <= LENGTH; offset++)
        {
            final long value = random.nextLong();
            memory.putLong(offset, value);
            assertThat(Frames.i64(base + offset)).as("i64 at %d", offset).isEqualTo(value);
            assertThat(Frames.i32(base + offset)).as("i32 at %d", offset).isEqualTo(memory.getInt(offset));
            assertThat(Frames.u16(base + offset)).as("u16 at %d", offset)
                .isEqualTo(memory.getShort(offset) & 0xFFFF);
            assertThat(Frames.u8(base + offset)).as("u8 at %d", offset).isEqualTo(memory.get(offset) & 0xFF);
        }
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 0x6A76_7300L})
    void shouldWriteWhatABigEndianBufferReadsAtEveryOffset(final long seed)
    {
        final ByteBuffer memory = ByteBuffer.allocateDirect(LENGTH).order(ByteOrder.BIG_ENDIAN);
        final long base = Frames.addressOf(memory);
        final SplittableRandom random = new SplittableRandom(seed);
        for (int offset = 0; offset + Long.BYTES <= LENGTH; offset++)
        {
            final long value = random.nextLong();
            Frames.putI64(base + offset, value);
            assertThat(memory.getLong(offset)).as("putI64 at %d", offset).isEqualTo(value);
            Frames.putI32(base + offset, (int)value);
            assertThat(memory.getInt(offset)).as("putI32 at %d", offset).isEqualTo((int)value);
            // Only the low 16 bits are written: the bytes after them keep what putI32 left.
            Frames.putU16(base + offset, (int)(value >>> 8));
            assertThat(memory.getShort(offset)).as("putU16 at %d", offset).isEqualTo((short)(value >>> 8));
            assertThat(memory.getShort(offset + 2)).as("after putU16 at %d", offset).isEqualTo((short)value);
            Frames.putU8(base + offset, (int)value);
            assertThat(memory.get(offset)).as("putU8 at %d", offset).isEqualTo((byte)value);
        }
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 0x6A76_7300L})
    void shouldGiveTheValuesWhoseNativeStoresWriteNetworkOrder(final long seed)
    {
        final ByteBuffer memory = ByteBuffer.allocateDirect(LENGTH).order(ByteOrder.nativeOrder());
        final SplittableRandom random = new SplittableRandom(seed);
        for (int round = 0; round < 100; round++)
        {
            final long value = random.nextLong();
            memory.putLong(0, Frames.inNetworkOrder(value));
            memory.putInt(8, Frames.inNetworkOrder((int)value));
            assertThat(Frames.i64(Frames.addressOf(memory))).isEqualTo(value);
            assertThat(Frames.i32(Frames.addressOf(memory) + 8)).isEqualTo((int)value);
        }
    }
}
