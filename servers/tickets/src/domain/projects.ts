export interface Project {
  key: string;
  name: string;
  description: string;
  archived: boolean;
  created_at: string;
}
