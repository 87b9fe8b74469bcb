package io.jvs.core.sched;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The {@code -b} flag parser: every refusal with its wording, the range limits of table-size, and the
 * flags printed back as ipvsadm does.
 */
class SchedulerFlagsTest
{
    @ParameterizedTest
    @CsvSource({
        "fast, rr, invalid scheduler flag `fast'",
        "'sh-port,', sh, invalid scheduler flag `'",
        "sh-port, mh, incompatible scheduler flag `sh-port'",
        "mh-fallback, sh, incompatible scheduler flag `mh-fallback'",
        "sh-fallback, rr, incompatible scheduler flag `sh-fallback'",
        "kernel-hash, rr, incompatible scheduler flag `kernel-hash'",
        "kernel-hash, mh, incompatible scheduler flag `kernel-hash'",
        "seed-overload, lblc, incompatible scheduler flag `seed-overload'",
        "seed-overload, mh, incompatible scheduler flag `seed-overload'",
        "table-size=8, rr, incompatible scheduler flag `table-size=8'",
        "table-size=8, wlc, incompatible scheduler flag `table-size=8'",
        "table-size=eight, dh, invalid table size `eight'",
        "table-size=, sh, invalid table size `'",
    })
    void shouldRefuseWithIpvsadmsWording(final String list, final String scheduler, final String message)
    {
        assertThatIllegalArgumentException()
            .isThrownBy(() -> SchedulerFlags.parse(list, scheduler))
            .withMessage(message);
    }

    @ParameterizedTest
    @ValueSource(strings = {"dh", "sh", "lblc", "lblcr"})
    void shouldAcceptTheKernelHashForTheHashingSchedulers(final String scheduler)
    {
        assertThat(SchedulerFlags.parse("kernel-hash", scheduler).kernelHash()).isTrue();
    }

    @ParameterizedTest
    @ValueSource(strings = {"dh", "sh"})
    void shouldAcceptTheSeedOverloadForDhAndSh(final String scheduler)
    {
        assertThat(SchedulerFlags.parse("seed-overload", scheduler).seedOverload()).isTrue();
    }

    @ParameterizedTest
    @ValueSource(ints = {2, 4, 1024, 1 << 20})
    void shouldAcceptPowerOfTwoTableSizesFrom2To2To20(final int size)
    {
        for (final String scheduler : new String[] {"dh", "sh", "lblc", "lblcr"})
        {
            assertThat(SchedulerFlags.parse("table-size=" + size, scheduler).tableSize()).isEqualTo(size);
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {-2, 0, 1, 3, 6, 1 << 21, (1 << 20) + 1})
    void shouldRefuseOtherHashTableSizes(final int size)
    {
        assertThatIllegalArgumentException()
            .isThrownBy(() -> SchedulerFlags.parse("table-size=" + size, "dh"))
            .withMessage("table size must be a power of two between 2 and 1048576: " + size);
    }

    @ParameterizedTest
    @ValueSource(ints = {7, 11, 13, 251, 4093, MaglevScheduler.MAX_TABLE_SIZE})
    void shouldAcceptPrimeMaglevSizesFrom7ToTheMaximum(final int size)
    {
        assertThat(SchedulerFlags.parse("table-size=" + size, "mh").tableSize()).isEqualTo(size);
    }

    @ParameterizedTest
    @ValueSource(ints = {2, 3, 5, 6, 8, 9, 25, 49, 121, 4095, 131072, 131101})
    void shouldRefuseMaglevSizesThatAreNotPrimesFrom7ToTheMaximum(final int size)
    {
        // 131101 is the first prime above the maximum; 9, 25, 49 and 121 are squares of primes.
        assertThatIllegalArgumentException()
            .isThrownBy(() -> SchedulerFlags.parse("table-size=" + size, "mh"))
            .withMessage("mh table size must be a prime between 7 and 131071: " + size);
    }

    @Test
    void shouldTellPrimes()
    {
        assertThat(SchedulerFlags.isPrime(-7)).isFalse();
        assertThat(SchedulerFlags.isPrime(0)).isFalse();
        assertThat(SchedulerFlags.isPrime(1)).isFalse();
        assertThat(SchedulerFlags.isPrime(2)).isTrue();
        assertThat(SchedulerFlags.isPrime(3)).isTrue();
        assertThat(SchedulerFlags.isPrime(4)).isFalse();
        assertThat(SchedulerFlags.isPrime(49)).isFalse();
        assertThat(SchedulerFlags.isPrime(131071)).isTrue();
        assertThat(SchedulerFlags.isPrime(2147483647)).isTrue();
    }

    @Test
    void shouldParseEachFlagIntoItsOwnField()
    {
        assertThat(SchedulerFlags.parse("flag-1", "rr"))
            .isEqualTo(new SchedulerFlags(true, false, false, false, false, 0));
        assertThat(SchedulerFlags.parse("flag-2", "rr"))
            .isEqualTo(new SchedulerFlags(false, true, false, false, false, 0));
        assertThat(SchedulerFlags.parse("flag-3", "rr"))
            .isEqualTo(new SchedulerFlags(false, false, true, false, false, 0));
        assertThat(SchedulerFlags.parse("mh-fallback,mh-port", "mh"))
            .isEqualTo(new SchedulerFlags(true, true, false, false, false, 0));
        assertThat(SchedulerFlags.parse("sh-port", "sh"))
            .isEqualTo(new SchedulerFlags(false, true, false, false, false, 0));
        assertThat(SchedulerFlags.parse("kernel-hash,seed-overload,table-size=16", "sh"))
            .isEqualTo(new SchedulerFlags(false, false, false, true, true, 16));
    }

    @Test
    void shouldSayWhetherAnyFlagIsSet()
    {
        assertThat(SchedulerFlags.NONE.any()).isFalse();
        assertThat(new SchedulerFlags(true, false, false, false, false, 0).any()).isTrue();
        assertThat(new SchedulerFlags(false, true, false, false, false, 0).any()).isTrue();
        assertThat(new SchedulerFlags(false, false, true, false, false, 0).any()).isTrue();
        assertThat(new SchedulerFlags(false, false, false, true, false, 0).any()).isTrue();
        assertThat(new SchedulerFlags(false, false, false, false, true, 0).any()).isTrue();
        assertThat(new SchedulerFlags(false, false, false, false, false, 7).any()).isTrue();
    }

    @Test
    void shouldPrintTheFlagsAsIpvsadmDoes()
    {
        final SchedulerFlags all = new SchedulerFlags(true, true, true, false, false, 0);
        assertThat(all.toListString("sh")).isEqualTo("sh-fallback,sh-port");
        assertThat(all.toListString("mh")).isEqualTo("mh-fallback,mh-port");
        assertThat(all.toListString("rr")).isEqualTo("flag-1,flag-2,flag-3");
        assertThat(new SchedulerFlags(false, false, true, false, false, 0).toListString("wlc")).isEqualTo("flag-3");
        assertThat(new SchedulerFlags(false, true, false, true, true, 64).toListString("dh"))
            .isEqualTo("flag-2,kernel-hash,seed-overload,table-size=64");
        assertThat(SchedulerFlags.NONE.toListString("sh")).isEmpty();
    }
}
