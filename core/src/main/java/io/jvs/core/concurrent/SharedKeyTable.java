package io.jvs.core.concurrent;

import io.jvs.core.memory.OffHeapAllocator;
import org.agrona.BitUtil;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * A table from 62-bit keys (an address, or a fingerprint of a compound key) to a 64-bit payload and two
 * times, shared by every worker, lock-free, in one off-heap atomic buffer: the destination table of lblc
 * and lblcr, and the persistence templates.
 * <p>
 * Set-associative: the caller hashes the address to one of {@code buckets} buckets (lblc and lblcr with the
 * service's address hash; 1024 buckets by default, as the kernel), and each bucket has {@link #WAYS} ways.
 * Each way has a control word, changed only by compare-and-set, and a record:
 * <pre>
 *   control word: | state (2 bits) | address fingerprint (62 bits) |
 *     EMPTY   00  never used; EMPTY ways are always the tail of a bucket, so a scan stops at the first
 *     LIVE    01  an entry
 *     DEAD    10  expired; its fingerprint stays until the way is reused
 *     CLAIMED 11  being filled by one writer; becomes LIVE with a release store
 *   record:       | lastUse ns (8) | payload (8) | lastMod ns, or the key's first word (8) | the key's second word (8) |
 * </pre>
 * <p>
 * A user whose key is a fingerprint of more than 62 bits may keep the whole key in the record's last two words
 * ({@link #acquire(long, int, long, long, long, long)}), so that a reader can tell what an entry is for; it then
 * does not use lastMod. The words are written before the control word's release store that makes the entry LIVE,
 * so a reader that saw it LIVE (a volatile read) sees them; a reader that wants them to belong to the entry it saw
 * reads the control word again after them, as {@link #keyHigh} says.
 * <p>
 * The fingerprint of an IPv4 address is the address itself, so IPv4 keys are exact. An IPv6 address is
 * mixed down to 61 bits; two IPv6 destinations that collide (about one chance in 2^61 per pair) share
 * one entry, which only means they share a cache server.
 * <p>
 * A writer claims the first reusable way of the bucket (a DEAD way of the same key first, then any DEAD
 * way, then the first EMPTY one) in a fixed order, so two writers adding the same key race for the same
 * way and the loser finds the winner's entry. After claiming, the writer scans the bucket once more; if
 * a concurrent reuse left the key LIVE in two ways, the higher way is retired, so a key is LIVE at most
 * once. Readers never wait: a lookup that meets a CLAIMED way treats it as a miss; a writer that meets
 * its own key CLAIMED looks again (a bounded number of times) rather than use a payload not yet written.
 * Entries are counted; as in the kernel, no new entry is added while there are more than
 * {@code 16 * buckets}.
 */
public final class SharedKeyTable
{
    /** Ways per bucket: twice the kernel's average of 16 entries a bucket. */
    public static final int WAYS = 32;
    /** Kernel max_size: 16 entries per bucket on average. */
    public static final int ENTRIES_PER_BUCKET = 16;

    public static final int NOT_FOUND = -1;

    private static final long STATE_MASK = 3L << 62;
    private static final long EMPTY = 0;
    private static final long LIVE = 1L << 62;
    private static final long DEAD = 2L << 62;
    private static final long CLAIMED = 3L << 62;
    private static final long FINGERPRINT_MASK = ~STATE_MASK;

    private static final int RECORD_LENGTH = 32;
    private static final int LAST_USE_OFFSET = 0;
    private static final int PAYLOAD_OFFSET = 8;
    private static final int LAST_MOD_OFFSET = 16;
    /** The key's first word shares lastMod's place: a table's user keeps one or the other. */
    private static final int KEY_HIGH_OFFSET = LAST_MOD_OFFSET;
    private static final int KEY_LOW_OFFSET = 24;

    private static final int CLAIM_ATTEMPTS = 8;

    private final AtomicBuffer buffer;
    /** Keeps the buffer's memory mapped. */
    private final OffHeapAllocator.Region memory;
    private final int buckets;
    private final int recordsOffset;
    private final int entriesOffset;
    private final int maxEntries;

    /**
     * @param buckets a power of two.
     */
    public SharedKeyTable(final int buckets)
    {
        this(buckets, OffHeapAllocator.DIRECT);
    }

    /**
     * @param buckets   a power of two.
     * @param allocator where the table's memory comes from (a large one that is seldom used costs nothing
     *                  until it is, from an allocator that maps pages as they are touched).
     */
    public SharedKeyTable(final int buckets, final OffHeapAllocator allocator)
    {
        if (!BitUtil.isPowerOfTwo(buckets))
        {
            throw new IllegalArgumentException("buckets must be a power of two: " + buckets);
        }
        this.buckets = buckets;
        this.maxEntries = buckets * ENTRIES_PER_BUCKET;
        final int ways = buckets * WAYS;
        this.recordsOffset = BitUtil.align(ways * Long.BYTES, BitUtil.CACHE_LINE_LENGTH);
        this.entriesOffset = recordsOffset + ways * RECORD_LENGTH;
        final int length = entriesOffset + 2 * BitUtil.CACHE_LINE_LENGTH;
        this.memory = allocator.allocate(length);
        this.buffer = new UnsafeBuffer(memory.address(), length);
    }

    public int buckets()
    {
        return buckets;
    }

    public int maxEntries()
    {
        return maxEntries;
    }

    /**
     * @return how many ways the table has ({@code buckets * WAYS}), numbered from 0.
     */
    public int ways()
    {
        return buckets * WAYS;
    }

    /**
     * @param way a way.
     * @return the key of the entry in it, or {@link #NOT_FOUND} when it holds none (or one being filled).
     */
    public long liveKey(final int way)
    {
        final long control = control(way);
        return (control & STATE_MASK) == LIVE ? control & FINGERPRINT_MASK : NOT_FOUND;
    }

    /**
     * @return how many LIVE entries (or being filled) the table holds.
     */
    public int entries()
    {
        return (int)buffer.getLongVolatile(entriesOffset);
    }

    /**
     * The fingerprint of an address: IPv4 exact, IPv6 mixed to 61 bits.
     *
     * @param v6   the family.
     * @param high first 64 bits (IPv6).
     * @param low  last 64 bits, or the IPv4 address in the low 32.
     * @return a non-zero value below 2^62.
     */
    public static long fingerprint(final boolean v6, final long high, final long low)
    {
        if (!v6)
        {
            return (1L << 32) | (low & 0xFFFF_FFFFL);
        }
        return (1L << 61) | (mix(high ^ mix(low)) & ((1L << 61) - 1));
    }

    /**
     * The fingerprint of a compound key (three words), mixed to 60 bits: distinct in form from address
     * fingerprints, and colliding with another compound key about once in 2^60 pairs.
     *
     * @return a non-zero value below 2^62.
     */
    public static long fingerprint(final long first, final long second, final long third)
    {
        return (1L << 60) | (mix(first ^ mix(second ^ mix(third))) & ((1L << 60) - 1));
    }

    private static long mix(final long value)
    {
        long z = value + 0x9E37_79B9_7F4A_7C15L;
        z = (z ^ (z >>> 30)) * 0xBF58_476D_1CE4_E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D0_49BB_1331_11EBL;
        return z ^ (z >>> 31);
    }

    /**
     * @param fingerprint the key.
     * @param bucket      its bucket.
     * @return the LIVE way holding the key, or {@link #NOT_FOUND}.
     */
    public int lookup(final long fingerprint, final int bucket)
    {
        final int first = bucket * WAYS;
        for (int way = first, end = first + WAYS; way < end; way++)
        {
            final long control = control(way);
            if (control == EMPTY)
            {
                break;
            }
            if (control == (LIVE | fingerprint))
            {
                return way;
            }
        }
        return NOT_FOUND;
    }

    /**
     * Finds the key's entry or adds one holding {@code initialPayload}, with lastUse and lastMod at now.
     *
     * @param fingerprint    the key.
     * @param bucket         its bucket.
     * @param nowNs          the time.
     * @param initialPayload the payload of a new entry.
     * @return the way, or {@link #NOT_FOUND} when the table or bucket is full (the caller then just does
     *         not cache its decision).
     */
    public int acquire(final long fingerprint, final int bucket, final long nowNs, final long initialPayload)
    {
        return acquire(fingerprint, bucket, nowNs, initialPayload, false, 0, 0);
    }

    /**
     * Finds the key's entry or adds one holding {@code initialPayload} and the whole key, with lastUse at now (no
     * lastMod: the key takes its place).
     *
     * @param fingerprint    the key's fingerprint.
     * @param bucket         its bucket.
     * @param nowNs          the time.
     * @param initialPayload the payload of a new entry.
     * @param keyHigh        the key's first word, for {@link #keyHigh} (an entry found keeps the words it has).
     * @param keyLow         its second word, for {@link #keyLow}.
     * @return as {@link #acquire(long, int, long, long)}.
     */
    public int acquire(final long fingerprint, final int bucket, final long nowNs, final long initialPayload,
        final long keyHigh, final long keyLow)
    {
        return acquire(fingerprint, bucket, nowNs, initialPayload, true, keyHigh, keyLow);
    }

    private int acquire(final long fingerprint, final int bucket, final long nowNs, final long initialPayload,
        final boolean keyed, final long keyHigh, final long keyLow)
    {
        final int first = bucket * WAYS;
        final int end = first + WAYS;
        for (int attempt = 0; attempt < CLAIM_ATTEMPTS; attempt++)
        {
            int sameKeyDead = NOT_FOUND;
            int anyDead = NOT_FOUND;
            int firstEmpty = NOT_FOUND;
            boolean claimed = false;
            for (int way = first; way < end; way++)
            {
                final long control = control(way);
                if (control == EMPTY)
                {
                    firstEmpty = way;
                    break;
                }
                final long state = control & STATE_MASK;
                if ((control & FINGERPRINT_MASK) == fingerprint)
                {
                    if (state == LIVE)
                    {
                        return way;
                    }
                    if (state == CLAIMED)
                    {
                        // Another writer is filling this key's way: its payload is not yet written, and a
                        // caller that read it would see the previous occupant's. Look again once it is LIVE.
                        claimed = true;
                        break;
                    }
                    sameKeyDead = way;
                }
                else if (state == DEAD && anyDead == NOT_FOUND)
                {
                    anyDead = way;
                }
            }
            if (claimed)
            {
                Thread.onSpinWait();
                continue;
            }
            final int target = sameKeyDead != NOT_FOUND ? sameKeyDead : (anyDead != NOT_FOUND ? anyDead : firstEmpty);
            if (target == NOT_FOUND || entries() > maxEntries)
            {
                return NOT_FOUND;
            }
            final long expected = control(target);
            if ((expected & STATE_MASK) == LIVE || (expected & STATE_MASK) == CLAIMED)
            {
                continue;
            }
            if (buffer.compareAndSetLong(controlOffset(target), expected, CLAIMED | fingerprint))
            {
                buffer.getAndAddLong(entriesOffset, 1);
                final int record = recordOffset(target);
                buffer.putLong(record + PAYLOAD_OFFSET, initialPayload);
                buffer.putLong(record + LAST_USE_OFFSET, nowNs);
                if (keyed)
                {
                    buffer.putLong(record + KEY_HIGH_OFFSET, keyHigh);
                    buffer.putLong(record + KEY_LOW_OFFSET, keyLow);
                }
                else
                {
                    buffer.putLong(record + LAST_MOD_OFFSET, nowNs);
                }
                buffer.putLongRelease(controlOffset(target), LIVE | fingerprint);
                return keepOnlyLowest(fingerprint, first, end, target);
            }
        }
        return NOT_FOUND;
    }

    /**
     * If a concurrent reuse left the key in two ways, retire the higher one.
     *
     * @return the way that holds the key now.
     */
    private int keepOnlyLowest(final long fingerprint, final int first, final int end, final int mine)
    {
        for (int way = first; way < end; way++)
        {
            if (way == mine)
            {
                continue;
            }
            final long control = control(way);
            if (control == EMPTY)
            {
                break;
            }
            if ((control & FINGERPRINT_MASK) == fingerprint && (control & STATE_MASK) != DEAD)
            {
                final int higher = Math.max(way, mine);
                retire(higher, LIVE | fingerprint);
                return Math.min(way, mine);
            }
        }
        return mine;
    }

    /**
     * Expires an entry if it is still the one seen.
     *
     * @param way             the way.
     * @param expectedControl its control word as read.
     * @return true when this call retired it.
     */
    private boolean retire(final int way, final long expectedControl)
    {
        if (buffer.compareAndSetLong(controlOffset(way), expectedControl, DEAD | (expectedControl & FINGERPRINT_MASK)))
        {
            buffer.getAndAddLong(entriesOffset, -1);
            return true;
        }
        return false;
    }

    /**
     * Retires the LIVE entries of one bucket idle for at least {@code idleNs}.
     *
     * @param bucket the bucket.
     * @param nowNs  the time.
     * @param idleNs how long an entry may stay unused.
     * @return how many entries were retired.
     */
    public int expireBucket(final int bucket, final long nowNs, final long idleNs)
    {
        int retired = 0;
        final int first = bucket * WAYS;
        for (int way = first, end = first + WAYS; way < end; way++)
        {
            final long control = control(way);
            if (control == EMPTY)
            {
                break;
            }
            if ((control & STATE_MASK) == LIVE && nowNs - lastUse(way) >= idleNs && retire(way, control))
            {
                retired++;
            }
        }
        return retired;
    }

    /**
     * Told about each entry {@link #expireBucket(int, long, long, long, ExpiryListener)} retires.
     */
    @FunctionalInterface
    public interface ExpiryListener
    {
        /**
         * @param payload the retired entry's payload.
         */
        void onExpired(long payload);
    }

    /** The payload bit that marks an entry being retired: set only while the busy bits are clear. */
    public static final long DYING = 1L << 63;

    /**
     * Retires the LIVE entries of one bucket whose time (as set by {@link #lastUse(int, long)} or
     * {@link #touch}) is at least {@code idleNs} in the past and whose payload has none of the
     * {@code busyMask} bits set. The payload is first marked {@link #DYING} by compare-and-set, so a user
     * that raises a busy bit with compare-and-set (refusing a DYING payload) never holds a retired entry.
     *
     * @return how many entries were retired.
     */
    public int expireBucket(final int bucket, final long nowNs, final long idleNs, final long busyMask,
        final ExpiryListener listener)
    {
        int retired = 0;
        final int first = bucket * WAYS;
        for (int way = first, end = first + WAYS; way < end; way++)
        {
            final long control = control(way);
            if (control == EMPTY)
            {
                break;
            }
            if ((control & STATE_MASK) == LIVE && nowNs - lastUse(way) >= idleNs)
            {
                final long payload = payload(way);
                if ((payload & (busyMask | DYING)) == 0 && compareAndSetPayload(way, payload, payload | DYING))
                {
                    // Marking it DYING made the entry this call's to retire; should a writer's duplicate
                    // check have retired the way meanwhile, the entry is still gone and still needs its
                    // listener (which releases what the payload holds).
                    retire(way, control);
                    retired++;
                    listener.onExpired(payload);
                }
            }
        }
        return retired;
    }

    /**
     * Sets an entry's time exactly (a deadline, for entries whose idle time varies).
     */
    public void lastUse(final int way, final long timeNs)
    {
        buffer.putLongRelease(recordOffset(way) + LAST_USE_OFFSET, timeNs);
    }

    /**
     * Retires every entry (the scheduler is done).
     */
    public void flush()
    {
        for (int bucket = 0; bucket < buckets; bucket++)
        {
            expireBucket(bucket, Long.MAX_VALUE, Long.MIN_VALUE);
        }
    }

    public long payload(final int way)
    {
        return buffer.getLongVolatile(recordOffset(way) + PAYLOAD_OFFSET);
    }

    public void payload(final int way, final long payload)
    {
        buffer.putLongRelease(recordOffset(way) + PAYLOAD_OFFSET, payload);
    }

    public boolean compareAndSetPayload(final int way, final long expected, final long update)
    {
        return buffer.compareAndSetLong(recordOffset(way) + PAYLOAD_OFFSET, expected, update);
    }

    public long lastUse(final int way)
    {
        return buffer.getLongVolatile(recordOffset(way) + LAST_USE_OFFSET);
    }

    /**
     * Records a use. Skips the store when the recorded time is already within a millisecond, so hot
     * entries do not bounce their cache line between workers on every new connection.
     */
    public void touch(final int way, final long nowNs)
    {
        final int index = recordOffset(way) + LAST_USE_OFFSET;
        if (nowNs - buffer.getLong(index) >= 1_000_000L)
        {
            buffer.putLongRelease(index, nowNs);
        }
    }

    /**
     * The first word of the key an entry was acquired with ({@link #acquire(long, int, long, long, long, long)}).
     * Read after seeing the way LIVE with {@link #liveKey}; the way may be retired and reused meanwhile, so a reader
     * that must have the words of the entry it saw reads {@link #liveKey} again afterwards and checks it is
     * unchanged (a way reused for the same key holds the same words).
     */
    public long keyHigh(final int way)
    {
        return buffer.getLongVolatile(recordOffset(way) + KEY_HIGH_OFFSET);
    }

    /**
     * The second word of the key an entry was acquired with (see {@link #keyHigh}).
     */
    public long keyLow(final int way)
    {
        return buffer.getLongVolatile(recordOffset(way) + KEY_LOW_OFFSET);
    }

    public long lastMod(final int way)
    {
        return buffer.getLongVolatile(recordOffset(way) + LAST_MOD_OFFSET);
    }

    public void lastMod(final int way, final long nowNs)
    {
        buffer.putLongRelease(recordOffset(way) + LAST_MOD_OFFSET, nowNs);
    }

    /**
     * @return the number of ways, LIVE or not, holding this fingerprint; for tests of consistency.
     */
    public int liveCopies(final long fingerprint, final int bucket)
    {
        int copies = 0;
        final int first = bucket * WAYS;
        for (int way = first, end = first + WAYS; way < end; way++)
        {
            if (control(way) == (LIVE | fingerprint))
            {
                copies++;
            }
        }
        return copies;
    }

    /**
     * @return how many ways are LIVE, counted by scanning; equals {@link #entries()} when quiescent.
     */
    public int countLive()
    {
        int live = 0;
        for (int way = 0, ways = buckets * WAYS; way < ways; way++)
        {
            if ((control(way) & STATE_MASK) == LIVE)
            {
                live++;
            }
        }
        return live;
    }

    private long control(final int way)
    {
        return buffer.getLongVolatile(controlOffset(way));
    }

    private static int controlOffset(final int way)
    {
        return way * Long.BYTES;
    }

    private int recordOffset(final int way)
    {
        return recordsOffset + way * RECORD_LENGTH;
    }
}
