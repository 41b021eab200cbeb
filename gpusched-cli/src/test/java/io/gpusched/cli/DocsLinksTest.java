package io.gpusched.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every relative link in the Markdown pages (the README, the top-level documents, docs/) reaches a file
 * that exists and, with a {@code #fragment}, a heading of that page, named as GitHub names its anchors:
 * so moving a section from one page to another cannot leave a link behind.
 */
class DocsLinksTest {
    /** Surefire runs in the module's directory; the pages are at the repository root. */
    private static final Path REPO = Path.of("..").toAbsolutePath().normalize();
    private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");
    private static final Pattern CODE_BLOCK = Pattern.compile("(?ms)^```.*?^```");
    private static final Pattern HEADING = Pattern.compile("(?m)^#{1,6} (.+)$");

    @Test
    void everyRelativeLinkReachesAFileAndEveryFragmentAHeading() throws IOException {
        List<String> broken = new ArrayList<>();
        int checked = 0;
        for (Path page : pages()) {
            Matcher m = LINK.matcher(CODE_BLOCK.matcher(Files.readString(page)).replaceAll(""));
            while (m.find()) {
                String target = m.group(1);
                if (target.matches("^[a-z]+:.*")) {
                    continue; // https:, mailto:
                }
                checked++;
                int hash = target.indexOf('#');
                String file = hash < 0 ? target : target.substring(0, hash);
                Path dest = file.isEmpty() ? page : page.getParent().resolve(file).normalize();
                if (!Files.exists(dest)) {
                    broken.add(REPO.relativize(page) + ": " + target + " (no such file)");
                } else if (hash >= 0 && dest.toString().endsWith(".md") && !anchors(dest).contains(target.substring(hash + 1))) {
                    broken.add(REPO.relativize(page) + ": " + target + " (no such heading in " + REPO.relativize(dest) + ")");
                }
            }
        }
        assertTrue(checked >= 60, "only " + checked + " links found");
        assertEquals(List.of(), broken, "broken links");
    }

    @Test
    void anchorsAreNamedAsGithubNamesThem() {
        assertEquals("learned-declarations-vramauto-and---auto-vram", slug("Learned declarations: `vram=auto` and `--auto-vram`"));
        assertEquals("sharing-a-gpu-gpus05", slug("Sharing a GPU: `gpus=0.5`"));
        assertEquals("starvation-a-4-gpu-job-behind-a-stream-of-1-gpu-jobs-13",
                slug("Starvation: a 4-GPU job behind a stream of 1-GPU jobs (#13)"));
    }

    /** README.md and the other top-level pages, and every page under docs/. */
    private static List<Path> pages() throws IOException {
        List<Path> pages = new ArrayList<>();
        for (String dir : List.of("", "docs")) {
            try (Stream<Path> s = Files.list(REPO.resolve(dir))) {
                s.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
            }
        }
        assertTrue(pages.contains(REPO.resolve("README.md")) && pages.size() >= 10, pages.toString());
        return pages;
    }

    /** The anchors GitHub gives a page's headings; a repeated heading gets {@code -1}, {@code -2}, ... */
    private static Set<String> anchors(Path page) throws IOException {
        Set<String> anchors = new HashSet<>();
        Map<String, Integer> seen = new HashMap<>();
        Matcher m = HEADING.matcher(CODE_BLOCK.matcher(Files.readString(page)).replaceAll(""));
        while (m.find()) {
            String slug = slug(m.group(1));
            int n = seen.merge(slug, 1, Integer::sum) - 1;
            anchors.add(n == 0 ? slug : slug + "-" + n);
        }
        return anchors;
    }

    /** Lower case, punctuation dropped (letters, digits, {@code _} and {@code -} kept), spaces as hyphens. */
    static String slug(String heading) {
        return heading.strip().toLowerCase(Locale.ROOT).replaceAll("[^\\p{L}\\p{N}_\\- ]", "").replace(' ', '-');
    }
}
