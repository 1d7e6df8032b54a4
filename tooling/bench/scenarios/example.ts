import { defineBench } from '../src/scenario.ts';

export default defineBench({
  coldStartTarget: 0.6,
  scenarios: [
    {
      name: '`list_notes` on an empty database',
      calls: [{ name: 'list_notes', arguments: {} }],
      target: 1.5,
    },
  ],
});
