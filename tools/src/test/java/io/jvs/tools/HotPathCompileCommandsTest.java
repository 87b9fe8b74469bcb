package io.jvs.tools;

import org.junit.jupiter.api.Test;

import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The compile commands tools/jvs gives the daemon and the benchmarks name methods that exist: HotSpot says nothing
 * of a command whose class or method is gone (the file is quiet), so a rename would silently stop the inlining the
 * per-packet path's speed depends on.
 */
class HotPathCompileCommandsTest
{
    /** Relative to the tools module, where Maven runs its tests. */
    private static final Path FILE = Path.of("jvm/hot-path.compile");

    @Test
    void shouldNameOnlyClassesAndMethodsThatExist() throws Exception
    {
        final List<String> commands = Files.readAllLines(FILE).stream()
            .map(String::strip)
            .filter(line -> !line.isEmpty() && !line.startsWith("#") && !line.equals("quiet"))
            .toList();
        assertThat(commands).isNotEmpty()
            .allMatch(line -> line.startsWith("inline ") || line.startsWith("dontinline "));
        for (final String command : commands)
        {
            final String pattern = command.substring(command.indexOf(' ') + 1);
            final int separator = pattern.indexOf("::");
            assertThat(separator).as(command).isPositive();
            final Class<?> type = Class.forName(pattern.substring(0, separator));
            final String method = pattern.substring(separator + 2);
            final Method[] methods = type.getDeclaredMethods();
            assertThat(method.equals("*") ? methods.length > 0 :
                Arrays.stream(methods).anyMatch(m -> m.getName().equals(method)))
                .as("%s: %s has a method %s", command, type.getName(), method).isTrue();
        }
    }
}
