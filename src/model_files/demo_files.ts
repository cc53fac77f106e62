// The files of the embedded demo model (public/models/demo/, served at models/demo/). The page
// answers "is there a chat_template.jinja?" from this listing instead of asking the server (a HEAD
// request per optional file, and a 404 in the console for each file the demo does not have).
// test/model_files/url_source.test.ts checks it against the folder.

/** Every file in public/models/demo/. */
export const DEMO_FILES: readonly string[] = [
  'README.md',
  'config.json',
  'generation_config.json',
  'model.safetensors',
  'tokenizer.json',
  'tokenizer_config.json',
];
