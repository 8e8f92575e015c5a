/**
 * The lab's exercises and worksheet, a part of the page's script (labScript.ts splices it into the
 * same closure). Each exercise (labExercises.ts) asks for its predictions first: it runs only when
 * every question has an answer, and then locks them. It plays the fixture put back to the original
 * and the changed story on the model, reads the right answers from the model's replies
 * (`answerOf`), shows the deciding step's reply, why, and the rules quoted word for word from the
 * contract (`Lab.RULES`), draws effect and acknowledgement as separate steps for the interruption,
 * and opens the changed story in the lab above, played through the deciding step. The worksheet is
 * saved and loaded as a file (worksheet.ts's schema: a bad file is refused by name and nothing of
 * it is taken) and exported as the printable report (worksheetReport.ts).
 */
export const LAB_WORK_SCRIPT = `
  let playPushed = false;

  /** The story of exercise \`x\`: its fixture put back to the original, and changed when \`changed\`. */
  function exerciseStory(x, changed) {
    const base = data.stories.find((s) => s.name === x.base);
    let steps = base.steps;
    for (const e of changed ? [...x.restore, ...x.change] : x.restore) {
      const out = Lab.editStory(steps, e);
      if (!out.ok) throw new Error(out.refusal.message);
      steps = out.steps;
    }
    return { ...base, edited: true, title: x.title + (changed ? ' (changed)' : ' (the original)'), steps, final: null };
  }

  /** Every step of \`s\` played on the contract's model: the worksheet's entries and the results beside them. */
  function playedAll(s) {
    let st = Lab.initialState(s.config);
    const entries = [];
    const results = [];
    s.steps.forEach((step, i) => {
      const r = Lab.playStoryStep(st, step, i + 1, s.focus.job);
      st = r.state;
      const e = { step: i + 1, command: describeCommand(step) };
      if (step.do) e.do = step.do;
      if (r.reply !== undefined) e.reply = r.reply;
      if (r.outcome !== undefined) e.outcome = r.outcome;
      e.moves = r.moves.map((m) => ({ job: m.job, from: m.from, to: m.to }));
      e.points = 0;
      e.of = 0;
      entries.push(e);
      results.push(r);
    });
    return { entries, results };
  }

  function timelineList(entries, job) {
    const ol = el('ol', 'lab-timeline');
    ol.setAttribute('aria-label', 'job ' + job + ': effect and acknowledgement as separate steps');
    for (const e of Lab.timelineOf(entries, job).entries) {
      const li = el('li', e.kind);
      li.dataset.kind = e.kind;
      li.append(el('b', '', e.kind === 'interruption' ? '⚡ ' : 'step ' + e.step + ' '), document.createTextNode(e.text));
      ol.appendChild(li);
    }
    return ol;
  }

  const labelOf = (q, steps, v) => {
    const found = Lab.answersOf(q.kind, steps).find(([value]) => value === v);
    return found ? found[1] : v === 'none' ? 'nowhere' : String(v);
  };

  /** Runs exercise \`x\` on the model: what each question's answer is, and the results to show. */
  function computeExercise(x) {
    const before = playedAll(exerciseStory(x, false));
    const afterStory = exerciseStory(x, true);
    const after = playedAll(afterStory);
    const interrupted = Lab.timelineOf(after.entries, afterStory.focus.job).interrupted;
    const right = {};
    for (const q of x.questions) {
      const at = (q.on === 'before' ? before : after).entries[x.step - 1];
      right[q.id] = Lab.answerOf(q.kind, at ? at.reply : undefined, interrupted);
    }
    return { before, after, afterStory, right };
  }

  function renderRun(x, card, answers, c) {
    const box = card.querySelector('.lab-x-result');
    box.hidden = false;
    box.replaceChildren();
    const steps = c.afterStory.steps.length;
    const ul = el('ul', 'lab-x-verdict');
    for (const q of x.questions) {
      const ok = answers[q.id] === c.right[q.id];
      const li = el('li', ok ? 'right' : 'wrong', (ok ? '✓ ' : '✗ ') + q.text + ' ' + labelOf(q, steps, c.right[q.id]) + (ok ? '' : ' (you said: ' + labelOf(q, steps, answers[q.id]) + ')'));
      li.dataset.question = q.id;
      ul.appendChild(li);
    }
    box.append(el('p', 'lab-label', 'your predictions beside the model'), ul);
    for (const [which, run] of x.questions.some((q) => q.on === 'before') ? [['before the change', c.before], ['after the change', c.after]] : [['', c.after]]) {
      const at = run.entries[x.step - 1];
      const p = el('p', 'lab-label', 'the model at step ' + x.step + (which ? ', ' + which : '') + ': ' + (at ? at.command : '–'));
      const code = el('code', 'lab-reply lab-x-reply', at ? JSON.stringify(at.reply !== undefined ? at.reply : at.outcome) : '–');
      code.dataset.run = which ? which.split(' ')[0] : 'after';
      box.append(p, code);
    }
    const res = c.after.results[x.step - 1];
    if (res) {
      const why = el('ul', 'lab-x-why');
      for (const e of res.explanations) why.appendChild(withCode(el('li'), e.sentence));
      box.append(el('p', 'lab-label', 'why'), why);
    }
    if (x.id === 'interruption') box.append(el('p', 'lab-label', 'effect, then acknowledgement: the two commits apart'), timelineList(c.after.entries, c.afterStory.focus.job));
    const named = res ? res.rules.map((r) => r.id) : [];
    const quotes = el('ul', 'lab-x-rules');
    for (const r of Lab.RULES.filter((r) => x.rules.includes(r.id) || named.includes(r.id))) {
      const li = el('li');
      li.dataset.rule = r.id;
      const q = el('q', 'lab-quote');
      withCode(q, r.sentence.replace(/\\*\\*/g, ''));
      li.append(el('span', 'lab-rule-id', '[' + r.id + '] '), q);
      if (named.includes(r.id)) li.append(el('span', 'lab-x-named', ' (the model named it at step ' + x.step + ')'));
      quotes.appendChild(li);
    }
    box.append(el('p', 'lab-label', 'the rules, quoted from the contract'), quotes);
  }

  function runExercise(x, card) {
    const answers = {};
    for (const sel of card.querySelectorAll('select')) answers[sel.name] = sel.value;
    if (Object.values(answers).some((v) => v === '')) return;
    for (const sel of card.querySelectorAll('select')) sel.disabled = true;
    card.querySelector('[data-x-run]').disabled = true;
    const c = computeExercise(x);
    let right = 0;
    for (const q of x.questions) if (answers[q.id] === c.right[q.id]) right += 1;
    sheet.exercises[x.id] = {
      answers,
      reasoning: card.querySelector('textarea').value,
      run: { job: c.afterStory.focus.job, right: c.right, points: right, of: x.questions.length, before: c.before.entries, after: c.after.entries },
    };
    sheet.score.points += right;
    sheet.score.asked += x.questions.length;
    begin(c.afterStory);
    playThrough(x.step);
    renderRun(x, card, answers, c);
    renderSheet();
    card.querySelector('.lab-x-result').scrollIntoView({ block: 'nearest' });
  }

  function renderExercises() {
    const box = $('lab-exercises-list');
    box.replaceChildren();
    Lab.LAB_EXERCISES.forEach((x, n) => {
      const card = el('section', 'card lab-x');
      card.id = 'lab-x-' + x.id;
      const steps = exerciseStory(x, true).steps.length;
      const open = el('button', '', 'Open the original story');
      open.type = 'button';
      open.addEventListener('click', () => begin(exerciseStory(x, false)));
      card.append(el('h3', '', (n + 1) + '. ' + x.title), el('p', '', x.task + ' It is the story ' + x.base + '.'), open);
      for (const q of x.questions) {
        const label = el('label', 'lab-x-q');
        const sel = el('select');
        sel.name = q.id;
        const none = el('option', '', '– your prediction');
        none.value = '';
        sel.appendChild(none);
        for (const [value, text] of Lab.answersOf(q.kind, steps)) {
          const o = el('option', '', text);
          o.value = value;
          sel.appendChild(o);
        }
        sel.addEventListener('change', () => {
          const all = [...card.querySelectorAll('select')].every((s) => s.value !== '');
          card.querySelector('[data-x-run]').disabled = !all;
        });
        label.append(el('span', '', q.text), sel);
        card.appendChild(label);
      }
      const why = el('label', 'lab-x-q');
      const area = el('textarea');
      area.name = 'reasoning';
      area.rows = 2;
      area.maxLength = 5000;
      area.addEventListener('input', () => {
        if (sheet.exercises[x.id]) sheet.exercises[x.id].reasoning = area.value;
      });
      why.append(el('span', '', x.explain + ' (your own words)'), area);
      const run = el('button', 'primary', 'Lock my predictions, then run');
      run.type = 'button';
      run.dataset.xRun = '';
      run.disabled = true;
      run.addEventListener('click', () => runExercise(x, card));
      const result = el('div', 'lab-x-result');
      result.hidden = true;
      result.setAttribute('aria-live', 'polite');
      card.append(why, run, result);
      box.appendChild(card);
    });
  }

  function renderSheet() {
    const plays = sheet.plays.filter((p) => p.trace.length > 0);
    const edited = plays.filter((p) => p.edited).length;
    const runs = Object.values(sheet.exercises).filter((e) => e.run).length;
    $('lab-ws-summary').textContent = plays.length + (plays.length === 1 ? ' story' : ' stories') + ' played (' + edited + ' edited), ' + runs + ' of ' + Lab.LAB_EXERCISES.length + ' experiments run; worksheet score ' + sheet.score.points + ' of ' + sheet.score.asked + '.';
  }

  function download(name, text, type) {
    const a = el('a');
    a.href = URL.createObjectURL(new Blob([text], { type }));
    a.download = name;
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(a.href), 60000);
  }

  /** Puts a worksheet read from a file in place of the page's: its answers in their fields, its runs shown. */
  function takeSheet(loaded) {
    sheet = loaded;
    playPushed = false;
    play = { ...play, trace: [] };
    $('lab-learner').value = sheet.learner;
    $('lab-answer').value = sheet.answer;
    renderExercises();
    for (const x of Lab.LAB_EXERCISES) {
      const done = sheet.exercises[x.id];
      if (!done) continue;
      const card = $('lab-x-' + x.id);
      for (const sel of card.querySelectorAll('select')) sel.value = Object.hasOwn(done.answers, sel.name) ? done.answers[sel.name] : '';
      card.querySelector('textarea').value = done.reasoning;
      if (!done.run) continue;
      for (const sel of card.querySelectorAll('select')) sel.disabled = true;
      renderRun(x, card, done.answers, computeExercise(x));
    }
    renderSheet();
  }

  $('lab-learner').addEventListener('input', () => (sheet.learner = $('lab-learner').value));
  $('lab-answer').addEventListener('input', () => (sheet.answer = $('lab-answer').value));
  $('lab-save').addEventListener('click', () => {
    const status = $('lab-ws-status');
    try {
      download('jobcheck-lab-worksheet.json', Lab.worksheetText(sheet), 'application/json');
      status.className = 'lab-check good';
      status.textContent = 'Saved as jobcheck-lab-worksheet.json.';
    } catch (error) {
      status.className = 'lab-check bad';
      status.textContent = 'Not saved: ' + (error && error.code ? error.code + ': ' : '') + (error && error.message ? error.message : String(error));
    }
  });
  $('lab-export').addEventListener('click', () => download('jobcheck-lab-report.html', Lab.worksheetReport(sheet), 'text/html'));
  $('lab-load').addEventListener('change', async () => {
    const file = $('lab-load').files[0];
    if (!file) return;
    const status = $('lab-ws-status');
    try {
      takeSheet(Lab.parseWorksheet(await file.text()));
      status.className = 'lab-check good';
      status.textContent = 'Loaded ' + file.name + '.';
    } catch (error) {
      status.className = 'lab-check bad';
      status.textContent = 'Not loaded, the worksheet is kept as it was: ' + (error && error.code ? error.code + ': ' : '') + (error && error.message ? error.message : String(error));
    }
    $('lab-load').value = '';
  });
  renderExercises();
`;
