import { normalizeForMatching } from "../normalize/normalize.js";

/**
 * English function words: pronouns, articles, determiners, conjunctions, prepositions,
 * auxiliaries and modals. They carry no harm of their own, but the learned heads lean on them
 * ("you" in "I will find you and hurt you" drew most of the attribution), so explanations skip
 * them and point at the words that carry the meaning ("find", "hurt"). A closed grammatical class,
 * not a list of harmful phrases: nothing here changes a score or a flag.
 */
const WORDS = [
  "i", "me", "my", "mine", "myself", "you", "your", "yours", "yourself", "yourselves", "u", "ur", "ya", "he", "him", "his", "himself",
  "she", "her", "hers", "herself", "it", "its", "itself", "we", "us", "our", "ours", "ourselves", "they", "them", "their", "theirs",
  "themselves", "one", "someone", "somebody", "anyone", "everyone", "who", "whom", "whose", "which", "what", "that", "this", "these", "those",
  "a", "an", "the", "some", "any", "each", "every", "all", "both", "either", "neither", "such",
  "and", "or", "but", "nor", "so", "yet", "if", "then", "than", "because", "while", "when", "where", "as", "though", "although",
  "to", "of", "in", "on", "at", "by", "for", "with", "from", "into", "onto", "about", "over", "under", "up", "down", "out", "off",
  "through", "after", "before", "around", "between", "against", "without", "within", "upon", "near",
  "until", "till", "unless", "since", "whether", "during", "across", "along", "among", "behind", "beside", "beyond", "toward", "towards", "via",
  "am", "is", "are", "was", "were", "be", "been", "being", "do", "does", "did", "done", "doing", "have", "has", "had", "having",
  "will", "would", "shall", "should", "can", "could", "may", "might", "must", "gonna", "gotta", "wanna", "going",
  "i'm", "im", "i'll", "ill", "i've", "ive", "i'd", "you're", "youre", "you'll", "you've", "you'd", "he's", "she's", "it's",
  "we're", "they're", "that's", "there's", "there", "here", "just", "very", "really", "too", "also", "not", "no", "don't", "dont",
  "let", "lets", "let's", "get", "got",
];

export const FUNCTION_WORDS: ReadonlySet<string> = new Set(WORDS.map((w) => normalizeForMatching(w)));
