/** Sentences in other languages (and English lead-ins) written for bench/language-coverage.ts; the tag is the language meant. */
/** Leads a foreign clause follows after a comma, in lower case (found by an audit: read with the lead, as English). */
export const ENGLISH_COMMA_LEADS = ["Nice to see you,", "You know what,", "Honestly, my friend,"];
/** Leads a foreign clause follows with no comma between ("I swear te voy a matar..."): left by session 48's fix. */
export const ENGLISH_BARE_LEADS = ["I swear", "honestly bro", "listen to me", "and then"];
export const ENGLISH_LEADS = ["Thanks, see you tomorrow.", "Hello my dear friend, how are you doing today?", "lol ok.", "Great game last night!", "I love you so much my friend, really.", "Hey."];
export const FOREIGN: Array<[string, string]> = [
  ["fr", "Je vais te tuer ce soir"], ["fr", "Les musulmans sont des rats qui doivent être exterminés."], ["fr", "Les femmes sont inférieures et doivent obéir aux hommes."],
  ["fr", "J'ai préparé les médicaments, je vais en finir cette nuit."], ["fr", "Il fait beau aujourd'hui, on va se promener au parc avec les enfants."], ["fr", "Ferme ta gueule, espèce de connard."],
  ["fr", "Je te déteste."], ["fr", "Tu es une salope."],
  ["es", "Vete a la mierda, maricón de mierda."], ["es", "Quiero morir esta noche, ya no aguanto más."], ["es", "Te voy a matar, hijo de puta."], ["es", "Mañana vamos a la playa con mis primos."], ["es", "Los inmigrantes son basura y hay que echarlos."], ["es", "Eres un idiota."],
  ["de", "Ich bringe dich um, du Schwein."], ["de", "Ich will nicht mehr leben."], ["de", "Alle Ausländer sind Abschaum."], ["de", "Wir gehen morgen ins Kino, kommst du mit?"], ["de", "Halt die Fresse, du Hurensohn."],
  ["it", "Ti troverò e ti ammazzerò, bastardo."], ["it", "Voglio morire, non ce la faccio più."], ["it", "Sei una puttana."],
  ["pt", "Vou te matar, seu filho da puta."], ["pt", "Eu quero morrer hoje à noite."], ["pt", "Os negros são uma raça inferior."],
  ["nl", "Ik maak je af, vuile hoer."], ["nl", "Ik wil niet meer leven."],
  ["pl", "Zabiję cię, ty skurwysynu."], ["tr", "Seni öldüreceğim, orospu çocuğu."], ["sv", "Jag ska döda dig, din jävla hora."],
  ["sw", "Ninakuua usiku huu, mpumbavu wewe."], ["hi-Latn", "Main tumhe aaj raat maar dunga, kutte"], ["id", "Aku akan membunuhmu malam ini."],
  // Russian and Arabic typed in Latin letters (session 52).
  ["ru-Latn", "Ya tebya ubyu segodnya nochyu, suka."], ["ru-Latn", "Ya bolshe ne hochu zhit, vse nadoelo."],
  ["ar-Latn", "Enta msh rajel, hamawtak el leila."], ["ar-Latn", "Ehna lazem nekhlas menhom kolohom."],
  ["ru", "Я тебя убью сегодня ночью."], ["ru", "Все мигранты должны сдохнуть."], ["uk", "Я тебе вб'ю."],
  ["ar", "سأقتلك الليلة"], ["ar", "أريد أن أموت"], ["he", "אני אהרוג אותך הלילה"], ["fa", "امشب تو را می‌کشم"],
  ["zh", "我今晚要杀了你，你这个混蛋"], ["zh", "我想死"], ["ja", "今夜お前を殺す"], ["ko", "오늘 밤 너를 죽일 거야"],
  ["hi", "मैं तुम्हें आज रात मार दूंगा"], ["th", "ฉันจะฆ่าคุณคืนนี้"], ["el", "Θα σε σκοτώσω απόψε."],
  // Everyday sentences typed without accents or with one slang word, which read close to English (session 37).
  ["fr", "Mais je vais te tuer demain matin, sale con."], ["fr", "Je te deteste, va mourir sale idiot."], ["fr", "Je vais te tuer"], ["fr", "T'es vraiment un gros con, degage."],
  ["fr", "Tu es un idiot, un cretin et un imbecile, je te deteste."], ["fr", "On se voit ce soir au cinema avec Marie?"], ["fr", "Les juifs controlent les banques et les medias."],
  ["fr", "Je veux mourir, je n'en peux plus de cette vie."], ["fr", "Merci pour ton aide hier, a demain."],
  ["es", "Voy a matarte manana, cabron de mierda."], ["es", "Eres una puta y todos lo saben."], ["es", "No quiero vivir mas, me voy a cortar las venas."], ["es", "Que hora es la reunion de manana?"],
  ["es", "Te voy a partir la cara, pendejo."], ["es", "Los gitanos son todos ladrones."],
  ["de", "Ich werde dich umbringen, du dreckiges Schwein."], ["de", "Du bist so ein Arschloch, verpiss dich."], ["de", "Ich mag nicht mehr, ich will sterben."], ["de", "Kannst du mir morgen beim Umzug helfen?"],
  ["it", "Ti ammazzo stasera, pezzo di merda."], ["it", "Sei proprio un coglione."], ["it", "Domani andiamo al mare con i bambini."],
  ["pt", "Voce e um idiota, cala a boca."], ["pt", "Vou acabar com a minha vida hoje."], ["pt", "Amanha vamos ao cinema com a familia."],
  ["nl", "Je bent een kankerlijer, rot op."], ["nl", "Ik ga je vermoorden vanavond."],
  ["bo", "ཁྱེད་རང་ལ་གསོད་རྒྱུ་ཡིན། ང་ཁྱེད་རང་ལ་སྡང་ངོ་།"], ["km", "ខ្ញុំនឹងសម្លាប់អ្នកនៅយប់នេះ"], ["my", "ငါမင်းကိုဒီညသတ်မယ်"],
];
