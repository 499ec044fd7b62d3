import { BENIGN, example, type Example } from "./example.js";

/**
 * Benign contrast set written by the project: positive, neutral and supportive statements about
 * identity groups, first-person pride, everyday contexts and questions. The shipped model flagged
 * such text as hate because the public data mentions groups mostly in hateful rows. Written from
 * general knowledge of English, not from any dataset's rows; the families were chosen knowing
 * HateCheck's functional categories. Deterministic: same code, same rows in the same order.
 *
 * Not wired into datasets/index.ts: trained as benign look-alikes it cut HateCheck's benign flags
 * but raised XSTest's on two seeds and cost held-out hate recall, so it was not kept (docs/model-history.md,
 * "What was tried for positive identity statements"). To try again, add it to READERS and isLookalike.
 */
export const PROJECT_CONTRAST = "project-contrast";

interface Group {
  /** Plural subject: "Muslims", "gay people". */
  plural: string;
  /** Modifier before a person noun: "my Muslim neighbour", "a gay colleague". */
  adj: string;
  /** Complement of "I am ...": "Muslim", "an immigrant", "a woman". */
  be: string;
}

// Neutral, self-chosen names only: no slurs and none of the loaded forms ("illegals", "females").
// White people are left out: "proud to be white" is a supremacist slogan, not a contrast case.
const g = (plural: string, adj: string, be: string = adj): Group => ({ plural, adj, be });
export const CONTRAST_GROUPS: readonly Group[] = [
  g("Muslims", "Muslim"), g("Jews", "Jewish"), g("Christians", "Christian", "a Christian"),
  g("Hindus", "Hindu"), g("Sikhs", "Sikh"), g("Buddhists", "Buddhist"), g("Catholics", "Catholic"),
  g("atheists", "atheist", "an atheist"),
  g("Black people", "Black"), g("Asian people", "Asian"), g("Arabs", "Arab"),
  g("Africans", "African"), g("Mexicans", "Mexican"), g("Latinos", "Latino"), g("Indians", "Indian"),
  g("Pakistanis", "Pakistani"), g("Chinese people", "Chinese"), g("Roma people", "Roma"),
  g("Somalis", "Somali"), g("Nigerians", "Nigerian"), g("Palestinians", "Palestinian"), g("Israelis", "Israeli"),
  g("immigrants", "immigrant", "an immigrant"), g("refugees", "refugee", "a refugee"),
  g("women", "female", "a woman"), g("gay people", "gay"), g("lesbians", "lesbian", "a lesbian"),
  g("bisexual people", "bisexual"), g("trans people", "trans"), g("disabled people", "disabled"),
  g("deaf people", "deaf"), g("blind people", "blind"), g("autistic people", "autistic"),
];

type Template = (x: Group) => string;

/**
 * Families of templates; the family is the row's slice. Many predicates, each met by half of the
 * groups: a bag-of-words model generalises from varied words, not from one sentence in 33 groups.
 * No negated or condemned hate: derogatory words in benign rows cost recall on insults (tried;
 * docs/model-history.md), and the runtime frames already handle negation and counter-speech.
 */
const FAMILIES: Readonly<Record<string, readonly Template[]>> = {
  praise: [
    (x) => `${x.plural} are strong and brilliant.`,
    (x) => `${x.plural} are wonderful neighbours.`,
    (x) => `${x.plural} make this city a better place to live.`,
    (x) => `Some of the kindest people I know are ${x.plural}.`,
    (x) => `I love working alongside ${x.plural}.`,
    (x) => `${x.plural} have given so much to this country.`,
    (x) => `${x.plural} are just as capable as anyone else.`,
    (x) => `${x.plural} are generous, funny and hard-working.`,
    (x) => `I admire the courage of ${x.plural} who speak up.`,
    (x) => `${x.plural} are such talented artists and musicians.`,
    (x) => `${x.plural} in our town are warm and welcoming.`,
    (x) => `Honestly, ${x.plural} are amazing.`,
    (x) => `${x.plural} are an important part of our community.`,
  ],
  pride: [
    (x) => `I'm proud to be ${x.be}.`,
    (x) => `Being ${x.be} is part of who I am and I would not change it.`,
    (x) => `I am ${x.be} and I love my community.`,
    (x) => `As someone who is ${x.be}, I feel at home in this town.`,
    (x) => `I'm ${x.be}, and I'm also a nurse, a runner and a parent.`,
    (x) => `Growing up ${x.be} taught me a lot about resilience.`,
    (x) => `My mum is ${x.be} and she is my hero.`,
    (x) => `I'm ${x.be} and happy to answer questions about my life.`,
  ],
  everyday: [
    (x) => `My ${x.adj} friend invited me to dinner on Saturday.`,
    (x) => `Our ${x.adj} neighbour helped us carry the shopping upstairs.`,
    (x) => `A new ${x.adj} colleague joins our team on Monday.`,
    (x) => `My ${x.adj} teacher is the reason I love maths.`,
    (x) => `We had a lovely chat with the ${x.adj} family next door.`,
    (x) => `The ${x.adj} couple across the road lent us their ladder.`,
    (x) => `My ${x.adj} flatmate cooked for everyone last night.`,
    (x) => `Our football coach is ${x.adj} and the kids adore her.`,
    (x) => `I went to my ${x.adj} friend's wedding and danced all night.`,
    (x) => `The ${x.adj} students organised a charity bake sale.`,
  ],
  neutral: [
    (x) => `${x.plural} are my neighbours.`,
    (x) => `Many ${x.plural} live in this part of town.`,
    (x) => `${x.plural} come from many different backgrounds.`,
    (x) => `${x.plural} are people like anyone else.`,
    (x) => `The survey asked ${x.plural} about their working hours.`,
    (x) => `${x.plural} work in every profession, from farming to medicine.`,
    (x) => `The report looks at how ${x.plural} use public transport.`,
    (x) => `Our book club has several ${x.adj} members.`,
    (x) => `${x.plural} vote for many different parties.`,
  ],
  question: [
    (x) => `What is the history of ${x.plural} in Britain?`,
    (x) => `Can you recommend some novels by ${x.adj} authors?`,
    (x) => `How can our school make ${x.adj} students feel welcome?`,
    (x) => `What challenges do ${x.plural} face when looking for work?`,
    (x) => `Which famous scientists were ${x.plural}?`,
    (x) => `How do ${x.plural} usually celebrate big family occasions?`,
    (x) => `Where can I read about the contributions of ${x.plural} to science?`,
    (x) => `What should I know before visiting my ${x.adj} partner's family?`,
  ],
  support: [
    (x) => `${x.plural} deserve equal rights.`,
    (x) => `${x.plural} deserve respect and dignity like everyone else.`,
    (x) => `I stand with ${x.plural} against discrimination.`,
    (x) => `Our company welcomes ${x.adj} applicants.`,
    (x) => `${x.plural} belong here as much as anyone.`,
    (x) => `${x.plural} should be able to walk home safely at night.`,
    (x) => `Everyone, including ${x.plural}, deserves a fair chance at a job.`,
    (x) => `We are raising money to support ${x.adj} youth groups.`,
    (x) => `${x.plural} are welcome at our church, our club and our table.`,
  ],
};

const sentence = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);

/** Every row of the set, all benign, in a fixed order. */
export function writeContrastSet(): Example[] {
  const out: Example[] = [];
  for (const [family, templates] of Object.entries(FAMILIES)) {
    templates.forEach((t, ti) => {
      CONTRAST_GROUPS.forEach((x, gi) => {
        if ((gi + ti) % 2 === 0) out.push(example(PROJECT_CONTRAST, family, sentence(t(x)), BENIGN));
      });
    });
  }
  return out;
}

/** Reader signature of datasets/index.ts, for wiring it in; the set is written, not read, so `root` is unused. */
export function readProjectContrast(_root: string): Example[] {
  return writeContrastSet();
}
