package scenario

import "slices"

// Clone returns a deep copy of s: no list, DNS answer, argument, comment or
// expectation of the copy shares memory with s, so either can be edited
// without the other seeing it (the minimizer edits copies; the fuzz
// targets copy scenarios whose lists they share between inputs).
func (s *Scenario) Clone() *Scenario {
	c := *s
	c.Comment = slices.Clone(s.Comment)
	c.Grant.FSRead = slices.Clone(s.Grant.FSRead)
	c.Grant.FSWrite = slices.Clone(s.Grant.FSWrite)
	c.Grant.NetHosts = slices.Clone(s.Grant.NetHosts)
	c.Grant.Tools = slices.Clone(s.Grant.Tools)
	c.World.Files = slices.Clone(s.World.Files)
	c.World.Links = slices.Clone(s.World.Links)
	c.World.Routes = slices.Clone(s.World.Routes)
	c.World.ToolOutputs = slices.Clone(s.World.ToolOutputs)
	if s.World.DNS != nil {
		c.World.DNS = make([]DNSRecord, len(s.World.DNS))
		for i, d := range s.World.DNS {
			c.World.DNS[i] = DNSRecord{Host: d.Host, Addrs: slices.Clone(d.Addrs)}
		}
	}
	if s.Steps != nil {
		c.Steps = make([]Step, len(s.Steps))
		for i, st := range s.Steps {
			st.Op.Args = slices.Clone(st.Op.Args)
			st.Comment = slices.Clone(st.Comment)
			if st.Expect != nil {
				e := *st.Expect
				st.Expect = &e
			}
			c.Steps[i] = st
		}
	}
	return &c
}
